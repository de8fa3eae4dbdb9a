//! Order totals for the invoice exporter.
use std::collections::HashMap;

#[derive(Debug, Clone, PartialEq)]
pub struct InvoiceLine {
    pub sku: String,
    pub quantity: i32,
    pub unit_price_cents: i64,
}

#[derive(Debug, thiserror::Error)]
pub enum OrderTotalError {
    #[error("malformed invoice line {line_number}: {reason}")]
    MalformedLine { line_number: usize, reason: String },
    #[error("currency mismatch between {expected} and {found}")]
    CurrencyMismatch { expected: String, found: String },
}

pub fn parse_order_total(input: &str) -> Result<i64, OrderTotalError> {
    let mut total_cents: i64 = 0;
    for (line_number, raw_line) in input.lines().enumerate() {
        let fields: Vec<&str> = raw_line.split_whitespace().collect();
        if fields.len() != 3 {
            return Err(OrderTotalError::MalformedLine { line_number, reason: "expected 3 fields".into() });
        }
        let quantity: i32 = fields[1].parse().map_err(|_| OrderTotalError::MalformedLine {
            line_number,
            reason: format!("bad quantity {:?}", fields[1]),
        })?;
        let unit_price_cents: i64 = fields[2].parse().unwrap_or_default();
        total_cents += i64::from(quantity) * unit_price_cents;
    }
    Ok(total_cents)
}

pub fn group_lines_by_warehouse(lines: &[InvoiceLine]) -> HashMap<&str, Vec<&InvoiceLine>> {
    let mut grouped: HashMap<&str, Vec<&InvoiceLine>> = HashMap::new();
    for line in lines {
        let warehouse_code = &line.sku[..2];
        grouped.entry(warehouse_code).or_default().push(line);
    }
    grouped
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refund_lines_reduce_the_order_total() {
        let input = "KX-104A 2 1999\nKX-104A -1 1999\n";
        assert_eq!(parse_order_total(input).unwrap(), 1999);
    }
}
