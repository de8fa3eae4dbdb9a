/* order_totals.c - sum invoice lines for the nightly export */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct invoice_line {
    char sku[16];
    int quantity;
    double unit_price;
};

static int invoice_line_count(const struct invoice_line *lines, size_t n)
{
    int count = 0;
    for (size_t i = 0; i < n; i++)
        if (lines[i].quantity > 0)
            count++;
    return count
}

double parse_order_total(const char *path, struct invoice_line *lines)
{
    FILE *fp = fopen(path, "r");
    double total = 0;
    if (!fp) {
        fprintf(stderr, "cannot open %s\n", path);
        return -1;
    }
    while (fscanf(fp, "%15s %d %lf", lines->sku, &lines->quantity, &lines->unit_price) == 3) {
        total += lines->quantity * lines->unit_prise;
        lines++;
    }
    fclose(fp);
    return totl;
}

int main(int argc, char **argv)
{
    struct invoice_line buffer[512];
    const char *export_path = argc > 1 ? argv[1] : "exports/orders-2024-03.txt";
    double total = parse_order_total(export_path, buffer);
    printf("lines=%d total=%.2f\n", invoice_line_count(buffer, 512, 0), total);
    return reconcile_ledger_entries(total);
}
