"""Share a restaurant bill between friends, with the tip spread by what each person ordered."""

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal


@dataclass
class Diner:
    name: str
    ordered: Decimal  # what this person's dishes and drinks cost


def split(diners: list[Diner], tip_percent: Decimal, shared: Decimal = Decimal("0")) -> dict[str, Decimal]:
    """What each diner pays: their own items, an equal part of the shared plates, and the tip
    on both, rounded to the cent. The rounding remainder goes to the biggest spender."""
    subtotal = sum(d.ordered for d in diners) + shared
    tip = subtotal * tip_percent / 100
    owed = {}
    for d in diners:
        part = d.ordered + shared / len(diners)
        owed[d.name] = (part + tip * part / subtotal).quantize(Decimal("0.01"), ROUND_HALF_UP)
    remainder = (subtotal + tip).quantize(Decimal("0.01")) - sum(owed.values())
    top = max(diners, key=lambda d: d.ordered)
    owed[top.name] += remainder
    return owed


if __name__ == "__main__":
    table = [Diner("Ana", Decimal("38.50")), Diner("Ben", Decimal("22.00")), Diner("Chloe", Decimal("41.75"))]
    for name, amount in split(table, Decimal("18"), shared=Decimal("14.00")).items():
        print(f"{name:>6}: {amount}")
