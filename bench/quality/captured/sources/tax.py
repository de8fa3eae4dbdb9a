# 按年度累计预扣法计算每月应预扣的个人所得税（综合所得）

# 年度税率表：上限（元）、税率、速算扣除数
TABLE = [
    (36000, 0.03, 0),
    (144000, 0.10, 2520),
    (300000, 0.20, 16920),
    (420000, 0.25, 31920),
    (660000, 0.30, 52920),
    (960000, 0.35, 85920),
    (float("inf"), 0.45, 181920),
]

MONTHLY_FREE = 5000  # 每月基本减除费用


def withhold(pay: list[float], social: float, special: float) -> list[float]:
    """每个月的预扣金额。pay：每月工资；social：每月五险一金；special：每月专项附加扣除（子女教育、房贷利息等）。"""
    paid = 0.0
    out = []
    for month, amount in enumerate(pay, start=1):
        base = sum(pay[:month]) - MONTHLY_FREE * month - (social + special) * month
        base = max(base, 0)
        for top, rate, quick in TABLE:
            if base <= top:
                due = base * rate - quick
                break
        out.append(round(due - paid, 2))
        paid = due
    return out


if __name__ == "__main__":
    # 月薪两万，五险一金三千五，专项附加扣除两千
    print(withhold([20000] * 12, 3500, 2000))
