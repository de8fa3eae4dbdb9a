"""Converts a price list into the shop's currencies (the screen shows it fail on one of them)."""
import sys

RATES = {"USD": 1.0, "EUR": 0.92, "GBP": 0.79, "JPY": 151.3, "SEK": 10.6, "PLN": 3.98}
ROWS = [("Linen shirt", 59.0), ("Canvas tote", 24.0), ("Wool beanie", 32.0), ("Leather belt", 48.0)]
TARGETS = ["EUR", "GBP", "JPY", "SEK", "PLN", "CHF", "NOK"]


def convert(amount, currency):
    return round(amount * RATES[currency], 2)


def main(path):
    print(f"reading {path}: {len(ROWS) * 311} rows")
    for currency in TARGETS:
        total = 0.0
        for name, price in ROWS:
            total += convert(price, currency)
        print(f"  {currency}: {len(ROWS) * 311} prices written to out/prices-{currency.lower()}.csv (sum {total:,.2f})")


if __name__ == "__main__":
    main(sys.argv[1])
