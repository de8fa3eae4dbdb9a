"""Writes the HTML pages, CSV sheets and documents that the captured screens show (stdlib only).

Run by capture.sh before it opens them in Chromium and LibreOffice: python3 gen_pages.py OUT_DIR.
Every page is a plain local file; the screens are what real programs draw of them."""

import html
import sys
from pathlib import Path

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/capq/pages")

CSS = """
body{margin:0;font-family:'DejaVu Sans','Noto Sans CJK SC',sans-serif;font-size:14px;background:%(bg)s;color:%(fg)s}
.top{background:%(bar)s;padding:10px 18px;font-size:18px;font-weight:bold;display:flex;gap:30px;align-items:center}
.top input{flex:1;max-width:600px;padding:6px;border:1px solid %(line)s;background:%(bg)s;color:%(fg)s}
.wrap{display:flex}.side{width:210px;padding:12px 16px;background:%(side)s;min-height:1000px;line-height:2}
.main{flex:1;padding:8px 18px}.row{display:flex;gap:16px;padding:6px 4px;border-bottom:1px solid %(line)s;white-space:nowrap;overflow:hidden}
.from{width:190px;font-weight:bold;overflow:hidden}.subj{flex:1;overflow:hidden}.muted{color:%(muted)s}.time{width:90px;text-align:right}
.msg{padding:5px 0}.who{font-weight:bold;margin-right:8px}.ts{color:%(muted)s;font-size:12px;margin-right:8px}
h1{font-size:24px;margin:10px 0}h2{font-size:18px;margin:16px 0 6px}p,li{line-height:1.55}
table{border-collapse:collapse;width:100%%}td,th{border-bottom:1px solid %(line)s;padding:5px 8px;text-align:left;white-space:nowrap}
.card{border:1px solid %(line)s;border-radius:6px;padding:8px;margin:6px 0;background:%(card)s}
.cols{display:flex;gap:14px}.col{flex:1}.tag{font-size:12px;color:%(muted)s}
"""
LIGHT = dict(bg="#ffffff", fg="#202124", bar="#f1f3f4", side="#f6f8fc", line="#e0e0e0", muted="#5f6368", card="#fafafa")
DARK = dict(bg="#1a1d21", fg="#d1d2d3", bar="#121016", side="#19171d", line="#33363a", muted="#9a9b9e", card="#222529")


def esc(text: str) -> str:
    return html.escape(text)


def page(name: str, title: str, body: str, *, dark: bool = False, lang: str = "en") -> None:
    colors = DARK if dark else LIGHT
    doc = f"<!doctype html><html lang='{lang}'><head><meta charset='utf-8'><title>{esc(title)}</title><style>{CSS % colors}</style></head><body>{body}</body></html>"
    (OUT / f"{name}.html").write_text(doc, encoding="utf-8")


def inbox(name, title, app, folders, rows, *, dark=False, lang="en", search="Search mail"):
    side = "".join(f"<div>{esc(f)}</div>" for f in folders)
    lines = "".join(
        f"<div class='row'><span class='from'>{esc(a)}</span><span class='subj'><b>{esc(s)}</b> <span class='muted'>- {esc(n)}</span></span><span class='time'>{esc(t)}</span></div>"
        for a, s, n, t in rows
    )
    body = f"<div class='top'>{esc(app)}<input value='' placeholder='{esc(search)}'></div><div class='wrap'><div class='side'>{side}</div><div class='main'>{lines}</div></div>"
    page(name, title, body, dark=dark, lang=lang)


def chat(name, title, app, channels, header, messages, *, dark=False, lang="en"):
    side = "".join(f"<div>{esc(c)}</div>" for c in channels)
    lines = "".join(
        f"<div class='msg'><span class='who'>{esc(w)}</span><span class='ts'>{esc(t)}</span>{esc(m)}</div>" for w, t, m in messages
    )
    body = f"<div class='top'>{esc(app)}</div><div class='wrap'><div class='side'>{side}</div><div class='main'><h2>{esc(header)}</h2>{lines}</div></div>"
    page(name, title, body, dark=dark, lang=lang)


def article(name, title, app, blocks, *, dark=False, lang="en", side=()):
    parts = []
    for block in blocks:
        kind, text = block[0], block[1:]
        if kind == "h1":
            parts.append(f"<h1>{esc(text[0])}</h1>")
        elif kind == "h2":
            parts.append(f"<h2>{esc(text[0])}</h2>")
        elif kind == "p":
            parts.append(f"<p>{esc(text[0])}</p>")
        elif kind == "ul":
            parts.append("<ul>" + "".join(f"<li>{esc(i)}</li>" for i in text[0]) + "</ul>")
        elif kind == "table":
            head, rows = text
            parts.append("<table><tr>" + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr>"
                         + "".join("<tr>" + "".join(f"<td>{esc(str(c))}</td>" for c in r) + "</tr>" for r in rows) + "</table>")
        elif kind == "cards":
            parts.append("".join(f"<div class='card'><b>{esc(t)}</b><div class='tag'>{esc(s)}</div></div>" for t, s in text[0]))
    nav = "".join(f"<div>{esc(s)}</div>" for s in side)
    inner = f"<div class='wrap'><div class='side'>{nav}</div><div class='main'>{''.join(parts)}</div></div>" if side else f"<div class='main'>{''.join(parts)}</div>"
    page(name, title, f"<div class='top'>{esc(app)}</div>{inner}", dark=dark, lang=lang)


def board(name, title, app, columns, *, dark=False, lang="en"):
    cols = "".join(
        f"<div class='col'><h2>{esc(c)}</h2>" + "".join(f"<div class='card'>{esc(t)}<div class='tag'>{esc(s)}</div></div>" for t, s in cards) + "</div>"
        for c, cards in columns
    )
    page(name, title, f"<div class='top'>{esc(app)}</div><div class='main cols'>{cols}</div>", dark=dark, lang=lang)


def fods(path: Path, rows: list[list[str]], widths: list[float]) -> None:
    """A flat OpenDocument sheet (what LibreOffice Calc opens) with the given column widths in cm."""
    cols = "".join(f"<table:table-column table:style-name='co{i}'/>" for i in range(len(widths)))
    styles = "".join(
        f"<style:style style:name='co{i}' style:family='table-column'><style:table-column-properties style:column-width='{w}cm'/></style:style>"
        for i, w in enumerate(widths)
    )

    def cell(value: str) -> str:
        try:
            number = float(value)
        except ValueError:
            return f"<table:table-cell office:value-type='string'><text:p>{esc(value)}</text:p></table:table-cell>"
        return f"<table:table-cell office:value-type='float' office:value='{number}'><text:p>{esc(value)}</text:p></table:table-cell>"

    body = "".join("<table:table-row>" + "".join(cell(v) for v in row) + "</table:table-row>" for row in rows)
    path.write_text(
        "<?xml version='1.0' encoding='UTF-8'?><office:document xmlns:office='urn:oasis:names:tc:opendocument:xmlns:office:1.0' "
        "xmlns:style='urn:oasis:names:tc:opendocument:xmlns:style:1.0' xmlns:table='urn:oasis:names:tc:opendocument:xmlns:table:1.0' "
        "xmlns:text='urn:oasis:names:tc:opendocument:xmlns:text:1.0' office:version='1.2' office:mimetype='application/vnd.oasis.opendocument.spreadsheet'>"
        f"<office:automatic-styles>{styles}</office:automatic-styles><office:body><office:spreadsheet>"
        f"<table:table table:name='{esc(path.stem)}'>{cols}{body}</table:table></office:spreadsheet></office:body></office:document>",
        encoding="utf-8",
    )
    path.with_suffix(".txt").write_text("\n".join(" ".join(row) for row in rows), encoding="utf-8")


def build() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    # ---------------------------------------------------------------- mail, English, busy
    inbox("mail-inbox-en", "Inbox (35) - dana.whitfield@fastmail.com - Fastmail", "Fastmail", ["Inbox 35", "Starred", "Sent", "Drafts", "Receipts", "Newsletters", "Archive", "Spam", "Trash"], [
        ("GitHub", "[myrecall] CI passed on main", "All checks have passed for commit 4f2a9c1", "09:42"),
        ("Patagonia", "Last chance: 30% off fleece", "Our warmest layers are on sale through Sunday", "09:30"),
        ("Notion Team", "What's new in Notion this week", "Layouts for databases, faster search and more", "09:12"),
        ("Marta Kowalski", "Re: Q4 roadmap review", "I moved the slides to the shared folder, see you at 3", "08:55"),
        ("United Airlines", "UA 837 to Tokyo Haneda: new departure time 18:40", "We're sorry, your trip is delayed by 2 h 25 min", "08:31"),
        ("LinkedIn", "You appeared in 14 searches this week", "See who's looking at your profile", "08:02"),
        ("Stripe", "Your weekly payout summary", "USD 4,312.80 will arrive on Nov 30", "07:48"),
        ("Figma", "Alex left 3 comments on Onboarding v3", "Can we try a lighter background on step two?", "07:15"),
        ("The Economist", "The world in brief", "Catch up quickly on the global stories that matter", "06:00"),
        ("Dropbox", "Your storage is 92% full", "Upgrade to get more space for your files", "Yesterday"),
        ("Jonas Berg", "Climbing on Thursday?", "The new wall at Bergstation opens, want to join?", "Yesterday"),
        ("Amazon", "Your order has shipped", "USB-C hub, 7-in-1, arriving Tuesday", "Yesterday"),
        ("Zoom", "Cloud recording available: Design sync", "Recording is ready to view and share", "Yesterday"),
        ("Google Calendar", "Invitation: 1:1 Marta / Dana", "Weekly from 10:00 to 10:30 (CET)", "Yesterday"),
        ("Substack", "Lenny's Newsletter: pricing pages that convert", "A look at 40 SaaS pricing pages", "Nov 26"),
        ("HMRC", "Your tax account has been updated", "Sign in to view your latest messages", "Nov 26"),
        ("Spotify", "Your Daily Mix is ready", "Fresh picks based on what you listen to", "Nov 26"),
        ("Atlassian", "[JIRA] PAY-2291 moved to In Review", "Refund webhook retries", "Nov 25"),
        ("Airbnb", "Rate your stay in Porto", "Tell Inês how the apartment was", "Nov 25"),
        ("Medium Daily Digest", "Why your microservices are slow", "Stories for Dana Whitfield", "Nov 25"),
        ("Revolut", "Monthly statement for October", "Your statement is ready to download", "Nov 24"),
        ("Coursera", "Week 3 of Machine Learning starts now", "Quiz due Sunday 23:59", "Nov 24"),
        ("PagerDuty", "Incident #4471 resolved", "High latency on api-gw-eu resolved after 14 min", "Nov 23"),
        ("Etsy", "Items in your cart are selling fast", "Handmade ceramic mug set", "Nov 23"),
        ("Slack", "New sign-in from Firefox on Linux", "If this was you, no action is needed", "Nov 22"),
        ("Mom", "Photos from Sunday", "The kids loved the pumpkins!", "Nov 22"),
        ("Vercel", "Deployment failed for marketing-site", "Build exceeded the memory limit", "Nov 21"),
        ("Duolingo", "Keep your 212-day streak alive", "A quick lesson is all it takes", "Nov 21"),
        ("Kickstarter", "Project update #12: shipping begins", "Backers in Europe receive theirs first", "Nov 20"),
        ("Wise", "You sent 250.00 EUR to Inês Costa", "Transfer complete", "Nov 20"),
    ])
    # ---------------------------------------------------------------- mail, English, dark, busy
    inbox("mail-inbox-dark", "Inbox - Outlook", "Outlook", ["Focused", "Other", "Inbox 18", "Drafts", "Sent Items", "Deleted Items", "Junk Email", "Archive"], [
        ("IT Service Desk", "Scheduled maintenance: VPN Sunday 01:00-03:00", "Expect brief disconnects", "10:05"),
        ("Priya Raman", "Budget draft v2", "Updated the headcount tab, please review", "09:58"),
        ("City of Oakland Parking", "Your residential parking permit expires on 12/31", "Renew online before the deadline to avoid a citation", "09:40"),
        ("Workday", "Action required: complete your benefits enrollment", "Open enrollment closes Dec 6", "09:12"),
        ("Tom Becker", "RE: vendor contract redlines", "Legal is fine with clause 7 now", "08:47"),
        ("Microsoft Teams", "You have 4 missed messages", "From Procurement channel", "08:30"),
        ("Costco", "Weekly savings", "Instant savings on TVs and laptops", "08:10"),
        ("Grafana Alerts", "[FIRING:1] disk usage db-02 above 85%", "Runbook: storage cleanup", "07:55"),
        ("Lena Ortiz", "Lunch & learn: accessibility basics", "Thursday 12:30 in Room 4B", "Yesterday"),
        ("Expensify", "Report approved: SFO trip", "USD 1,204.16 will be reimbursed", "Yesterday"),
        ("DocuSign", "Please sign: NDA - Brightline Labs", "Sent by Tom Becker", "Yesterday"),
        ("Calendly", "New event: Intro call with Ravi", "Friday 3:00 PM PST", "Yesterday"),
        ("Chase", "Your statement is ready", "Account ending in 4471", "Nov 26"),
        ("Comcast", "Your bill is ready", "Amount due $89.99 on Dec 3", "Nov 26"),
        ("Asana", "5 tasks due this week", "Q4 planning project", "Nov 25"),
        ("Marco Ruiz", "Team offsite photos", "Shared album link inside", "Nov 25"),
        ("HR Announcements", "Holiday schedule 2026", "Office closed Dec 24 to Jan 1", "Nov 24"),
        ("Zendesk", "Ticket #88213 escalated", "Customer reports duplicate invoices", "Nov 24"),
        ("Nextdoor", "Lost cat near Lakeshore Ave", "Grey tabby, answers to Miso", "Nov 23"),
        ("AWS Billing", "Your invoice for October", "Total: $3,882.40", "Nov 23"),
        ("GitLab", "Pipeline #9921 failed", "Job lint failed on branch feature/export", "Nov 22"),
    ], dark=True, search="Search")
    # ---------------------------------------------------------------- mail, Chinese, busy
    inbox("mail-inbox-zh", "收件箱 - QQ邮箱", "QQ邮箱", ["收件箱 (28)", "星标邮件", "草稿箱", "已发送", "已删除", "垃圾箱", "订阅邮件"], [
        ("京东", "您的订单已出库", "小米空气净化器 4 Pro，预计明天送达", "10:21"),
        ("招商银行", "信用卡电子账单（11月）", "本期应还金额 ￥3,286.50，到期还款日12月8日", "10:02"),
        ("王芳", "回复：周报模板", "我改了第三部分，你看一下", "09:47"),
        ("和睦家医院", "您的体检报告已生成，请登录查看", "报告编号 TJ20261127，可在线预约解读", "09:30"),
        ("12306", "网上购票系统-用户支付通知", "您已成功购买 G102 次列车车票", "09:05"),
        ("知乎", "本周热门回答精选", "为什么程序员都喜欢机械键盘？", "08:40"),
        ("淘宝", "您关注的宝贝降价了", "加厚羽绒服 限时优惠", "08:12"),
        ("李明", "项目进度同步", "接口联调预计下周三完成", "昨天"),
        ("腾讯会议", "会议录制已生成", "产品评审会 录制文件可下载", "昨天"),
        ("钉钉", "考勤异常提醒", "11月25日 下班未打卡", "昨天"),
        ("美团", "您的外卖评价", "给这家店打个分吧", "昨天"),
        ("中国移动", "话费账单提醒", "本月话费 128.00 元", "11月26日"),
        ("豆瓣", "你想看的电影上映了", "《流浪地球3》今日上映", "11月26日"),
        ("携程旅行", "酒店入住提醒", "杭州西湖国宾馆 12月2日入住", "11月25日"),
        ("阿里云", "云服务器即将到期", "实例 i-bp1a2 将于12月10日到期", "11月25日"),
        ("小红书", "你的笔记获得了 56 个赞", "冬季护肤心得", "11月24日"),
        ("B站", "你关注的UP主更新了", "十分钟看懂量子计算", "11月24日"),
        ("张伟", "周末聚餐地点", "就定在望京那家火锅吧", "11月23日"),
        ("物业服务中心", "关于小区停水的通知", "11月30日 9:00-17:00 管道检修", "11月23日"),
        ("支付宝", "月度账单已出", "10月支出 6,842.30 元", "11月22日"),
        ("网易云音乐", "年度歌单生成啦", "来看看你今年听了什么", "11月22日"),
        ("GitHub", "[shop-api] Pull request merged", "#214 修复优惠券叠加问题", "11月21日"),
    ], lang="zh", search="搜索邮件")
    # ---------------------------------------------------------------- chat, English, dark, busy
    chat("chat-slack-dark", "#general - Northwind - Slack", "Northwind", ["# general", "# engineering", "# design", "# random", "# help-it", "# sales-emea", "Direct messages", "Marta Kowalski", "Jonas Berg"], "# general", [
        ("Marta Kowalski", "9:02 AM", "Morning all! Reminder that the all-hands moved to 4pm today."),
        ("Jonas Berg", "9:05 AM", "Does anyone have the link to the new expense policy?"),
        ("Priya Raman", "9:06 AM", "@Jonas it's pinned in #finance"),
        ("Alex Chen", "9:14 AM", "The staging deploy is green again, thanks Lena for the quick fix"),
        ("Facilities Bot", "9:20 AM", "Heads up: the office is closed this Friday while the building replaces the water pipes. Please work from home."),
        ("Lena Ortiz", "9:21 AM", "🙏 no problem, it was a missing env var"),
        ("Sam Okafor", "9:33 AM", "Who's up for lunch at the Thai place?"),
        ("Marta Kowalski", "9:34 AM", "Me! 12:15?"),
        ("Ravi Patel", "9:41 AM", "New customer logo on the website looks great"),
        ("Alex Chen", "9:52 AM", "Reminder: code freeze starts Dec 15"),
        ("Jonas Berg", "10:03 AM", "Can someone review my PR for the CSV export? #1182"),
        ("Priya Raman", "10:07 AM", "On it after standup"),
        ("Sam Okafor", "10:15 AM", "The coffee machine on floor 3 is fixed ☕"),
        ("Lena Ortiz", "10:22 AM", "Anyone know how to get a second monitor from IT?"),
        ("IT Helpdesk", "10:25 AM", "@Lena open a ticket in #help-it and we'll bring one up"),
        ("Ravi Patel", "10:40 AM", "Quarterly sales numbers are in the dashboard, great work EMEA team"),
        ("Marta Kowalski", "10:48 AM", "Welcome to our new designer, Yuki! 🎉"),
        ("Yuki Tanaka", "10:50 AM", "Thanks everyone, happy to be here"),
        ("Alex Chen", "11:02 AM", "The flaky login test is quarantined until we find the cause"),
    ], dark=True)
    # ---------------------------------------------------------------- chat, Chinese, busy
    chat("chat-wechat-zh", "相亲相爱一家人(12) - 微信", "微信", ["相亲相爱一家人", "公司项目群", "大学同学", "小区业主群", "妈妈", "文件传输助手"], "相亲相爱一家人(12)", [
        ("二姨", "08:12", "早上好！今天降温了，大家多穿点"),
        ("爸爸", "08:30", "[图片] 楼下的银杏叶都黄了"),
        ("表妹", "08:41", "好美啊"),
        ("妈妈", "09:02", "今年过年都回来吗？提前说一声我好准备"),
        ("小舅", "09:10", "我们初二过去"),
        ("我", "09:15", "我抢到了腊月二十八的高铁票，晚上七点到家"),
        ("妈妈", "09:16", "太好了，到时候让你爸去站里接你"),
        ("二姨", "09:20", "最近流感厉害，老人孩子要注意"),
        ("表哥", "09:35", "有人知道哪里修手机屏幕便宜吗？"),
        ("爸爸", "09:40", "小区门口那家就行"),
        ("表妹", "10:02", "[链接] 这个电饭煲打折，要不要给奶奶换一个"),
        ("小舅", "10:15", "奶奶的降压药快吃完了，谁下午有空去药店"),
        ("表哥", "10:18", "我去吧，顺路"),
        ("二姨", "10:30", "[语音] 12\""),
        ("妈妈", "10:45", "周六包饺子，想吃什么馅的"),
        ("表妹", "10:46", "韭菜鸡蛋！"),
        ("爸爸", "11:00", "阳台的花该换盆了"),
    ], lang="zh")
    # ---------------------------------------------------------------- chat, mixed EN/ZH, dark
    chat("chat-mixed-dark", "infra-cn - Lark", "Lark 飞书", ["infra-cn", "backend", "oncall", "随便聊聊", "Kevin Zhao", "Mia Lin"], "infra-cn", [
        ("Kevin Zhao", "14:02", "大家好，下周的变更计划发一下"),
        ("Mia Lin", "14:03", "sure, I'll post the runbook link"),
        ("Kevin Zhao", "14:05", "我们下周六把主数据库迁到新加坡机房，maintenance window Sat 02:00-05:00 SGT"),
        ("Tom Becker", "14:06", "Do we need to freeze writes during the cutover?"),
        ("Kevin Zhao", "14:08", "需要，只读模式大概四十分钟"),
        ("Mia Lin", "14:10", "Grafana dashboard 已经加了 replication lag 面板"),
        ("Sara Wu", "14:15", "上周的告警噪音太多了，能不能调一下阈值？"),
        ("Tom Becker", "14:17", "I'll tune the CPU alert to 90% for 10 min"),
        ("Sara Wu", "14:20", "谢谢 👍"),
        ("Kevin Zhao", "14:31", "另外 Redis 7 升级放到十二月中"),
        ("Mia Lin", "14:33", "OK, and the Kafka retention change?"),
        ("Kevin Zhao", "14:35", "保留期从7天改成3天，磁盘压力太大"),
        ("Tom Becker", "14:40", "Lunch order for Friday team dinner is in the sheet"),
        ("Sara Wu", "14:42", "我报名了"),
    ], dark=True, lang="zh")
    # ---------------------------------------------------------------- one opened mail each
    article("mail-open-en", "Your appointment has been rescheduled - Gmail", "Gmail", [
        ("h1", "Your appointment has been rescheduled"),
        ("p", "From: Bright Smile Dental <noreply@brightsmile-dental.com>  To: dana.whitfield@fastmail.com"),
        ("p", "Hi Dana,"),
        ("p", "Dr. Alvarez is attending a conference on the original date, so your hygiene visit (cleaning and X-rays) has been moved from Tuesday, December 2 at 9:00 AM to Thursday, December 4 at 2:30 PM."),
        ("p", "If the new time doesn't work for you, reply to this email or call us at (510) 555-0142. Please arrive 10 minutes early and bring your insurance card."),
        ("p", "Bright Smile Dental, 2140 Shattuck Ave, Berkeley"),
    ], side=["Inbox", "Starred", "Snoozed", "Sent", "Drafts", "Categories", "Updates", "Promotions"])
    article("mail-open-zh", "关于补交签证材料的通知 - 网易邮箱", "网易邮箱", [
        ("h1", "关于补交签证材料的通知"),
        ("p", "发件人：德国签证申请中心（上海）  收件人：liu.yang@163.com"),
        ("p", "刘洋 女士/先生，您好："),
        ("p", "您于11月18日递交的申根短期签证申请（编号 SHA-2026-118834）尚缺以下材料：最近三个月的银行流水（需加盖银行公章）、在职证明原件及营业执照复印件。"),
        ("p", "请于12月5日前携带上述文件到静安区南京西路1266号恒隆广场二期递交，逾期未补交的申请将被拒绝。"),
        ("p", "如有疑问，请拨打客服热线 021-6010-8888（工作日 8:00-17:00）。"),
    ], side=["收件箱", "红旗邮件", "待办邮件", "已发送", "草稿箱", "通讯录"], lang="zh")
    # ---------------------------------------------------------------- documents and pages
    article("web-news-zh", "新闻 - 今日头条", "今日头条", [
        ("h1", "推荐"),
        ("cards", [
            ("南方多地迎来今冬首场寒潮，部分地区气温骤降十度以上", "中国天气网 · 3小时前 · 评论 2.1万"),
            ("新能源汽车11月销量同比增长三成，多家车企发布年终优惠", "第一财经 · 4小时前"),
            ("国产大飞机C919新增两条国际航线", "央视新闻 · 5小时前"),
            ("北京地铁17号线北段正式开通运营", "北京日报 · 6小时前"),
            ("研究发现每天步行八千步可显著降低心血管疾病风险", "健康时报 · 6小时前"),
            ("中超联赛收官：上海海港提前一轮夺冠", "新浪体育 · 7小时前"),
            ("故宫博物院推出数字文物库，可在线欣赏十万件藏品", "人民网 · 8小时前"),
            ("多地公布元旦假期高速公路免费通行安排", "交通运输部 · 9小时前"),
            ("一季度手机出货量排行出炉", "科技日报 · 10小时前"),
            ("成都大熊猫基地迎来今年第五只新生幼崽", "四川观察 · 11小时前"),
        ]),
    ], lang="zh", side=["推荐", "热榜", "财经", "科技", "体育", "娱乐", "国际", "军事", "本地"])
    article("web-docs-2fa", "Turn on two-step verification - Help Center", "Help Center", [
        ("h1", "Turn on two-step verification"),
        ("p", "Two-step verification adds a second layer of security to your account. After you enter your password, you confirm it's you with a code from an authenticator app or a security key."),
        ("h2", "Set it up"),
        ("ul", ["Go to Settings > Security.", "Under Signing in, select Two-step verification and follow the steps.", "Scan the QR code with an authenticator app such as Google Authenticator or 1Password.", "Enter the 6-digit code the app shows, then save your backup codes somewhere safe."]),
        ("h2", "If you lose your phone"),
        ("p", "Use one of your backup codes to sign in, then remove the old device under Settings > Security > Devices and add the new one."),
    ], side=["Getting started", "Account", "Security", "Billing", "Integrations", "Troubleshooting"])
    article("web-recipe-zh", "红烧肉的家常做法 - 下厨房", "下厨房", [
        ("h1", "红烧肉的家常做法"),
        ("p", "用料：五花肉 500克、冰糖 30克、生抽 2勺、老抽 1勺、料酒 2勺、八角 2个、桂皮 1小段、香叶 2片、姜 3片、葱 1根"),
        ("h2", "做法步骤"),
        ("ul", ["五花肉切成三厘米见方的块，冷水下锅焯水，撇去浮沫后捞出沥干。", "锅里放少许油，小火把冰糖炒出枣红色的糖色。", "倒入肉块翻炒上色，加入料酒、生抽、老抽和香料。", "加开水没过肉，大火烧开后转小火炖一个小时。", "最后大火收汁，汤汁浓稠发亮即可出锅。"]),
        ("p", "小贴士：炒糖色时火一定要小，糖色炒过头会发苦。"),
    ], dark=True, lang="zh", side=["首页", "菜谱分类", "热门作品", "厨房故事", "我的收藏"])
    article("web-shop-desk", "FlexiSpot E7 Pro Standing Desk - Amazon.com", "amazon", [
        ("h1", "FlexiSpot E7 Pro Standing Desk, 60 x 30 Inch, Dual Motor, Height Adjustable"),
        ("p", "4.6 out of 5 stars · 12,408 ratings · $479.99 · FREE delivery Tuesday, December 2"),
        ("ul", ["Lifts from 22.8 to 48.4 inches with a quiet dual motor", "Holds up to 355 lb; anti-collision sensor stops it on contact", "Four memory presets and a child lock on the keypad", "Bamboo top, 15-year frame warranty, easy assembly in about 30 minutes"]),
        ("p", "Customers also bought: monitor arm, anti-fatigue mat, cable management tray"),
    ])
    article("web-weather", "Minneapolis, MN 10-Day Weather Forecast - weather.com", "The Weather Channel", [
        ("h1", "Minneapolis, MN"),
        ("p", "WINTER STORM WARNING in effect from Tuesday 6 PM until Wednesday noon: 8 to 12 inches of snow, wind gusts to 40 mph, travel could be very difficult."),
        ("table", ["Day", "High / Low", "Conditions", "Precip"], [
            ("Today", "34° / 21°", "Cloudy", "10%"), ("Mon", "31° / 18°", "Partly sunny", "5%"), ("Tue", "27° / 19°", "Heavy snow at night", "90%"),
            ("Wed", "22° / 6°", "Snow ending, windy", "70%"), ("Thu", "15° / 2°", "Sunny, cold", "0%"), ("Fri", "20° / 9°", "Mostly sunny", "10%"),
        ]),
    ])
    article("web-bank-zh", "账户明细 - 中国工商银行个人网上银行", "中国工商银行", [
        ("h1", "账户明细 尾号 6217"),
        ("table", ["交易日期", "摘要", "对方户名", "收入", "支出", "余额"], [
            ("2026-11-27", "消费", "盒马鲜生", "", "186.40", "23,517.22"), ("2026-11-26", "代发工资", "北京星云科技有限公司", "18,600.00", "", "23,703.62"),
            ("2026-11-25", "转账", "张明", "", "4,500.00", "5,103.62"), ("2026-11-24", "消费", "滴滴出行", "", "36.80", "9,603.62"),
            ("2026-11-23", "缴费", "国家电网", "", "212.55", "9,640.42"), ("2026-11-22", "消费", "星巴克", "", "38.00", "9,852.97"),
            ("2026-11-21", "利息", "", "2.15", "", "9,890.97"), ("2026-11-20", "消费", "京东商城", "", "1,299.00", "9,888.82"),
            ("2026-11-19", "转账", "李娜", "300.00", "", "11,187.82"), ("2026-11-18", "消费", "中国石化加油站", "", "320.00", "10,887.82"),
            ("2026-11-17", "缴费", "北京燃气", "", "158.00", "11,207.82"), ("2026-11-16", "消费", "美团外卖", "", "45.50", "11,365.82"),
        ]),
        ("p", "11月25日 转账 张明 附言：12月房租"),
    ], lang="zh", side=["我的账户", "账户明细", "转账汇款", "信用卡", "投资理财", "缴费"])
    article("web-github-issue", "Export to PDF drops the last page · Issue #2291 · inkwell/inkwell", "GitHub", [
        ("h1", "Export to PDF drops the last page #2291"),
        ("p", "Open · rkhan opened this issue 3 days ago · 14 comments · Labels: bug, export, needs-repro"),
        ("p", "When a document is longer than 20 pages, the exported PDF is missing its final page. The preview shows every page; only the file written by Export is short. Happens in 4.2.1 on macOS 14 and Windows 11."),
        ("p", "Steps: open any long document, File > Export > PDF, compare page counts."),
        ("p", "mlopez commented 2 days ago: Reproduced with a 23-page file; the last page's footnotes seem to trigger it."),
        ("p", "rkhan commented yesterday: Workaround is to add an empty page at the end before exporting."),
    ], dark=True, side=["Code", "Issues 214", "Pull requests 37", "Actions", "Projects", "Wiki", "Security", "Insights"])
    article("web-forum-zh", "怎样给猫剪指甲它才不会挣扎？ - 知乎", "知乎", [
        ("h1", "怎样给猫剪指甲它才不会挣扎？"),
        ("p", "家里的英短一剪指甲就又抓又咬，有什么好办法吗？"),
        ("h2", "铲屎官小王 · 2,318 赞同"),
        ("p", "趁它睡得迷迷糊糊的时候下手，一次只剪两三个，剪完马上给零食。用专门的猫用指甲剪，只剪前端透明的部分，千万别剪到粉色的血线。"),
        ("h2", "宠物医生陈 · 1,045 赞同"),
        ("p", "可以用毛巾把猫裹起来只露出一只爪子，轻轻按压肉垫让指甲伸出来。如果实在不配合，就带去宠物医院处理，不要强行按住。"),
    ], lang="zh", side=["首页", "会员", "发现", "等你来答"])
    article("web-calendar", "Week of Dec 1 - Google Calendar", "Google Calendar", [
        ("h1", "December 1 - 7, 2026"),
        ("table", ["", "Mon 1", "Tue 2", "Wed 3", "Thu 4", "Fri 5"], [
            ("9:00", "Standup", "Standup", "Standup", "Standup", "Standup"), ("10:00", "1:1 Marta", "", "Roadmap review", "", "Demo prep"),
            ("12:00", "Lunch", "Yoga", "Lunch", "Yoga", "Team lunch"), ("14:00", "", "Design crit", "", "", "Sprint demo"),
            ("16:30", "", "", "Parent-teacher conference (Room 12, Mrs. Hale)", "", ""), ("18:00", "Climbing", "", "", "Book club", ""),
        ]),
    ], side=["Create", "My calendars", "Dana Whitfield", "Birthdays", "Tasks", "Other calendars", "Holidays in United States"])
    article("web-hotel", "Booking confirmed - Memmo Alfama Hotel, Lisbon - Booking.com", "Booking.com", [
        ("h1", "Your booking in Lisbon is confirmed"),
        ("p", "Memmo Alfama Hotel · Travessa das Merceeiras 27, Lisbon · Confirmation number 4471.228.913 · PIN 0922"),
        ("table", ["Check-in", "Check-out", "Room", "Price"], [("Fri, Jan 16, from 15:00", "Mon, Jan 19, until 12:00", "Deluxe Double with River View", "€ 612")]),
        ("p", "Free cancellation until January 14 at 23:59. Breakfast included. The rooftop terrace with the pool is open 8:00-22:00."),
    ])
    article("web-train-zh", "订单详情 - 中国铁路12306", "中国铁路12306", [
        ("h1", "订单详情 已支付"),
        ("table", ["车次", "出发", "到达", "日期", "席别", "车厢座位", "票价"], [
            ("G102", "上海虹桥 06:26", "北京南 12:29", "2027-02-04（腊月二十八）", "二等座", "07车 12F", "￥667.0"),
        ]),
        ("p", "乘车人：刘洋  身份证 310***********1234  订单号 E872361945"),
        ("p", "温馨提示：请携带购票时使用的有效身份证件原件，提前30分钟到站检票。"),
    ], lang="zh", side=["首页", "车票", "团购服务", "会员服务", "站车服务", "信息查询"])
    article("web-docker-zh", "使用数据卷持久化容器数据 - Docker 中文文档", "Docker 中文文档", [
        ("h1", "使用数据卷（volume）持久化容器数据"),
        ("p", "容器删除后，写在容器可写层里的数据会一起消失。数据卷由 Docker 管理，独立于容器的生命周期，适合保存数据库文件。"),
        ("h2", "创建并挂载数据卷"),
        ("p", "docker volume create pgdata"),
        ("p", "docker run -d --name db -v pgdata:/var/lib/postgresql/data postgres:16"),
        ("h2", "备份数据卷"),
        ("p", "docker run --rm -v pgdata:/data -v $(pwd):/backup alpine tar czf /backup/pgdata.tgz /data"),
    ], lang="zh", side=["入门", "安装", "镜像", "容器", "数据管理", "网络", "Compose"])
    board("web-jira-board", "PAY board - Jira", "Jira Software", [
        ("To Do", [("Add Apple Pay to checkout", "PAY-2310"), ("Localize receipts into Polish", "PAY-2312"), ("Rate-limit coupon endpoint", "PAY-2315"), ("Update PCI scan report", "PAY-2318"), ("Dark mode for billing page", "PAY-2320")]),
        ("In Progress", [("Refund button charges the customer twice in Safari", "PAY-2297 · Highest"), ("Migrate invoices table to bigint ids", "PAY-2301"), ("Retry failed payouts nightly", "PAY-2303")]),
        ("In Review", [("Webhook signature check", "PAY-2291"), ("Currency rounding for JPY", "PAY-2299")]),
        ("Done", [("Export payouts as CSV", "PAY-2280"), ("3-D Secure fallback", "PAY-2284"), ("Fix timezone in statements", "PAY-2288"), ("Remove legacy PayPal button", "PAY-2290")]),
    ])
    article("web-video-zh", "木工 - 哔哩哔哩搜索", "哔哩哔哩", [
        ("h1", "搜索结果"),
        ("cards", [
            ("从零开始做一个实木小板凳，新手也能学会", "木头人老李 · 58万播放 · 3天前"),
            ("【开箱】这台咖啡机值不值三千块？", "数码小白 · 120万播放"),
            ("五分钟看懂美联储加息", "财经老张 · 34万播放"),
            ("原神新版本全角色强度排行", "游戏攻略君 · 88万播放"),
            ("我在云南山里住了一个月", "旅行的阿杰 · 210万播放"),
            ("健身小白第一周训练计划", "健身教练Kevin · 45万播放"),
            ("Python 爬虫入门到放弃", "码农阿飞 · 19万播放"),
            ("猫咪第一次见到雪的反应", "喵星人日记 · 300万播放"),
        ]),
    ], dark=True, lang="zh", side=["首页", "番剧", "直播", "游戏中心", "会员购", "漫画"])
    article("web-reddit-dark", "r/Sourdough - Reddit", "reddit", [
        ("h1", "r/Sourdough"),
        ("cards", [
            ("My first open crumb after 6 months of trying!", "u/crumbshot · 1.2k upvotes · 88 comments"),
            ("Starter smells like nail polish remover after a week in the fridge. Is it dead?", "u/breadnewbie · 342 upvotes · 61 comments"),
            ("Best Dutch oven under $60?", "u/thriftybaker · 95 upvotes"),
            ("Rye discard crackers recipe (super easy)", "u/norwegianloaf · 410 upvotes"),
            ("Why is my loaf so flat? Photos inside", "u/flatbread_lol · 57 upvotes"),
            ("Weekly bake thread: show us your loaves", "AutoModerator · pinned"),
            ("Banneton vs bowl with a towel", "u/minimalist_baker · 33 upvotes"),
            ("Overnight cold retard schedule that works for me", "u/nightshiftnurse · 201 upvotes"),
        ]),
    ], dark=True)
    article("web-food-order-zh", "订单详情 - 美团外卖", "美团外卖", [
        ("h1", "订单已送达"),
        ("p", "杨国福麻辣烫（望京店） 送达时间 12:38  骑手：赵师傅"),
        ("table", ["商品", "数量", "价格"], [("麻辣香锅（微辣）", "1", "￥42.00"), ("米饭", "2", "￥4.00"), ("酸梅汤", "1", "￥8.00"), ("配送费", "", "￥3.50"), ("满减优惠", "", "-￥10.00")]),
        ("p", "实付 ￥47.50  备注：不要香菜，多放点醋"),
    ], lang="zh", side=["首页", "订单", "我的"])
    article("web-pharmacy", "Prescriptions - CVS Pharmacy", "CVS Pharmacy", [
        ("h1", "Your prescriptions"),
        ("table", ["Medication", "Prescriber", "Refills left", "Status"], [
            ("Lisinopril 10 mg tablet", "Dr. K. Osei", "2", "Ready for pickup at 1420 University Ave"),
            ("Atorvastatin 20 mg tablet", "Dr. K. Osei", "5", "Refill due Dec 12"),
            ("Fluticasone nasal spray", "Dr. M. Varga", "0", "Contact prescriber"),
        ]),
        ("p", "Pickup hours: Mon-Fri 8 AM-9 PM, Sat-Sun 9 AM-6 PM. Bring a photo ID."),
    ])
    article("web-settings-zh", "隐私与安全 - 设置", "系统设置", [
        ("h1", "隐私与安全"),
        ("table", ["权限", "状态"], [("定位服务", "已开启（仅使用期间）"), ("相机", "已允许 3 个应用"), ("麦克风", "已允许 2 个应用"), ("屏幕录制", "已关闭"), ("通讯录", "已允许 1 个应用"), ("个性化广告", "已关闭"), ("自动锁定", "5 分钟后")]),
        ("p", "定位服务使用 GPS、蓝牙和无线局域网来确定您的大致位置。"),
    ], lang="zh", side=["通用", "显示与亮度", "声音", "通知", "隐私与安全", "电池", "关于本机"])

    # ---------------------------------------------------------------- LibreOffice: documents and sheets
    (OUT / "minutes.html").write_text("""<html><head><meta charset='utf-8'><title>Residents meeting minutes</title></head><body>
<h1>Maple Court Residents' Association – Minutes</h1>
<p>Date: Tuesday, November 18, 2026 · Location: Community room · Present: 23 households · Chair: Helen Park</p>
<h2>1. Treasurer's report</h2><p>The reserve fund stands at $41,280. Snow removal contract renewed with Frost Brothers at $3,900 for the season.</p>
<h2>2. Lobby repainting</h2><p>Three quotes received; the committee will choose by December 1. Color samples are in the mail room.</p>
<h2>3. Bicycle storage</h2><p>Motion to install eight covered bicycle racks beside the east entrance, cost $2,150 from the reserve fund. Passed 19 to 4.</p>
<h2>4. Quiet hours</h2><p>Reminder: quiet hours are 10 PM to 7 AM. Two complaints about the third floor were discussed.</p>
<h2>5. Holiday potluck</h2><p>December 13 at 6 PM in the community room. Sign-up sheet on the notice board.</p>
<p>Next meeting: January 20, 2027.</p></body></html>""", encoding="utf-8")
    (OUT / "nianhui.html").write_text("""<html><head><meta charset='utf-8'><title>年会通知</title></head><body>
<h1>关于举办2026年度公司年会的通知</h1>
<p>各部门同事：</p>
<p>为感谢大家一年来的辛勤付出，公司定于2027年1月22日（星期五）下午三点在浦东香格里拉大酒店三楼宴会厅举办年度年会。</p>
<h2>一、活动安排</h2><p>15:00 签到；15:30 总经理致辞；16:00 优秀员工颁奖；17:30 晚宴及抽奖；20:00 结束。</p>
<h2>二、节目报名</h2><p>每个部门至少准备一个节目，请于12月20日前将节目名称和时长报给行政部王芳。</p>
<h2>三、着装要求</h2><p>本次年会主题为“复古上海”，欢迎穿旗袍、中山装或民国风服装出席。</p>
<p>公司将安排班车，17号线诸光路站一号口集合，14:20发车。</p>
<p>行政部  2026年11月27日</p></body></html>""", encoding="utf-8")
    BUDGET = ("""Category,Item,Jan,Feb,Mar,Apr,May,Jun,Notes
Housing,Rent,1850,1850,1850,1850,1850,1850,lease ends Aug
Housing,Renters insurance,18,18,18,18,18,18,
Utilities,Electricity,96,88,74,61,55,70,
Utilities,Internet,65,65,65,65,65,65,fiber 500
Utilities,Phone,45,45,45,45,45,45,
Food,Groceries,520,480,505,530,498,515,
Food,Restaurants,140,95,160,120,180,150,
Transport,Car payment,329,329,329,329,329,329,
Transport,Gas,110,98,105,120,130,125,
Transport,Transit pass,0,0,0,86,86,86,
Health,Gym membership,39,39,39,39,39,39,
Health,Copays,0,25,0,40,0,25,
Pets,Dog food,62,0,62,0,62,0,
Pets,Dog grooming,0,75,0,0,75,0,every 3 months
Pets,Vet,0,0,210,0,0,0,vaccines
Kids,Daycare,1200,1200,1200,1200,1200,1200,
Kids,Swim lessons,0,90,90,90,0,0,
Savings,Emergency fund,300,300,300,300,300,300,
Savings,Roth IRA,500,500,500,500,500,500,
Fun,Streaming,32,32,32,32,32,32,
Fun,Concert tickets,0,0,0,180,0,0,
Gifts,Birthdays,60,0,45,0,120,0,
""")
    EXPENSE = ("""日期,类别,说明,金额,发票号,审批人
2026-11-03,交通,北京南-上海虹桥 高铁二等座,553.00,04412345,王芳
2026-11-03,交通,虹桥站到客户公司 出租车,68.00,04412346,王芳
2026-11-03,住宿,上海全季酒店 两晚,798.00,04412350,王芳
2026-11-04,餐饮,客户午餐,326.00,04412351,王芳
2026-11-04,交通,地铁,12.00,,王芳
2026-11-05,交通,上海虹桥-北京南 高铁二等座,553.00,04412352,王芳
2026-11-12,交通,首都机场到家 出租车 凌晨航班延误,156.00,04412360,李明
2026-11-12,住宿,深圳南山酒店 一晚,455.00,04412361,李明
2026-11-13,餐饮,团队晚餐,580.00,04412362,李明
2026-11-13,办公,打印装订投标文件,230.00,04412363,李明
2026-11-14,交通,深圳宝安-北京首都 机票经济舱,1280.00,04412364,李明
2026-11-20,通讯,出差期间手机流量包,30.00,,王芳
合计,,,5068.00,,
""")


    fods(OUT / "household-budget.fods", [line.split(",") for line in BUDGET.strip().splitlines()], [3.2, 4.2] + [1.6] * 6 + [4.0])
    fods(OUT / "chailv-baoxiao.fods", [line.split(",") for line in EXPENSE.strip().splitlines()], [3.0, 1.8, 9.5, 2.2, 2.8, 2.0])


if __name__ == "__main__":
    build()
    print(f"pages written to {OUT}")
