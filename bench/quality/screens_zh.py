"""Chinese screens of the quality set: WeChat, news, docs, shopping, train tickets, bank bills,
a Feishu calendar and document, mail, Zhihu, food delivery, a recipe, code with Chinese
comments, a health report."""

from bench.quality.layouts import Screen, calendar, chat, editor

ZH_PAGE_CSS = """
.zp { padding: 22px 60px; font-size: 15.5px; line-height: 1.75; } .zp h1 { font-size: 28px; line-height: 1.35; margin-bottom: 10px; }
.zp p { margin-bottom: 12px; } .zp .cols { display: flex; gap: 40px; } .zp main { width: 900px; } .zp aside { width: 340px; font-size: 14.5px; }
"""

WECHAT_CONVS = [
    ("柏林华人徒步群(56)", "王强：晚上一起去吃火锅？"),
    ("妈妈", "你自己也注意身体"),
    ("产品讨论组", "小雨：原型我晚点发群里"),
    ("文件传输助手", "[文件] 护照扫描件.pdf"),
    ("张伟", "周末有空打球吗"),
    ("小雨", "好的收到"),
    ("招商银行信用卡", "您的10月账单已出"),
]

def wechat(*, key: str, window: str, when: str, messages: list[tuple[str, str, str]]) -> Screen:
    """WeChat for Mac with the conversation `window` open (first in the list), Chen Wei being me."""
    convs = [conv for conv in WECHAT_CONVS if conv[0] == window] + [conv for conv in WECHAT_CONVS if conv[0] != window]
    return Screen(
        key=key,
        lang="zh",
        app_name="微信",
        window_name=window,
        when=when,
        size=(1440, 900),
        body=chat(title="微信", convs=convs, active=0, head=window, bubbles=True, me="陈伟", messages=messages, compose=""),
    )


WECHAT_HIKE = wechat(
    key="zh-wechat-hike",
    window="柏林华人徒步群(56)",
    when="2026-11-05 20:10",
    messages=[
        ("李娜", "19:42", "周六早上八点在 Wannsee 火车站集合，走格吕讷瓦尔德环线，全程大概14公里"),
        ("王强", "19:45", "收到！我开车，能捎三个人，从 Prenzlauer Berg 出发"),
        ("陈伟", "19:51", "我报名，带了两根登山杖，谁需要可以借"),
        ("李娜", "19:53", "天气预报说下午两点以后有雷阵雨，记得带雨衣和保温杯"),
        ("赵敏", "19:58", "中午在湖边野餐吧，我带三明治和水果"),
        ("王强", "20:03", "下山走北线，四点前回到停车场，晚上一起去吃火锅？"),
    ],
)

WECHAT_MOM = wechat(
    key="zh-wechat-mom",
    window="妈妈",
    when="2026-11-03 21:15",
    messages=[
        ("妈妈", "20:58", "下周二你爸去协和医院复查，我挂到了心内科王主任的专家号"),
        ("陈伟", "21:02", "几点的号？我让小雨请假陪你们去"),
        ("妈妈", "21:05", "上午九点半，要空腹抽血，别忘了提醒他前一天晚上不要吃东西"),
        ("陈伟", "21:07", "好的，结果出来拍给我看看"),
        ("妈妈", "21:11", "你自己也注意身体，少熬夜，柏林天冷了多穿点"),
    ],
)

NEWS_CPI = Screen(
    key="zh-news-cpi",
    lang="zh",
    app_name="Google Chrome",
    window_name="国家统计局：10月份CPI同比上涨0.2% 猪肉价格同比下降12.5%_澎湃新闻-The Paper",
    browser_url="https://www.thepaper.cn/newsDetail_forward_31842276",
    tabs=("新浪财经_新浪网",),
    when="2026-11-04 08:20",
    css=ZH_PAGE_CSS,
    body="""
<div class="zp"><div class="muted small">澎湃新闻 &gt; 财经上下游</div><div class="cols"><main>
<h1>国家统计局：10月份CPI同比上涨0.2%，猪肉价格同比下降12.5%</h1><div class="muted small">澎湃新闻记者 周頔 &middot; 2026-11-04 09:30 &middot; 来源：澎湃新闻</div><br>
<p>国家统计局今天发布数据显示，10月份，全国居民消费价格同比上涨0.2%，环比下降0.1%。其中，城市上涨0.3%，农村持平；食品价格下降2.1%，非食品价格上涨0.7%。</p>
<p>食品中，猪肉价格下降12.5%，鲜果价格下降4.8%，鲜菜价格上涨6.3%。国家统计局城市司首席统计师董莉娟表示，受季节性因素和生猪供应充足影响，猪肉价格继续回落。</p>
<p>扣除食品和能源价格后的核心CPI同比上涨0.5%，涨幅与上月相同。1至10月平均，全国居民消费价格比上年同期上涨0.1%。</p>
<p>同日发布的数据显示，10月份全国工业生产者出厂价格同比下降2.3%，降幅比上月收窄0.4个百分点。</p></main>
<aside><b>热门新闻</b><p>1. 神舟二十三号载人飞船发射取得圆满成功</p><p>2. 新能源汽车10月销量同比增长32%</p><p>3. A股三大指数集体收涨，成交额超1.5万亿</p>
<p>4. 北京今冬首场降雪或将提前到来</p><p>5. 教育部：严禁中小学布置寒假作业打卡</p></aside></div></div>""",
)

DOCS_VUE = Screen(
    key="zh-docs-vue",
    lang="zh",
    app_name="Google Chrome",
    window_name="响应式基础 | Vue.js",
    browser_url="https://cn.vuejs.org/guide/essentials/reactivity-fundamentals.html",
    tabs=("组合式 API 常见问答 | Vue.js",),
    when="2026-11-04 10:40",
    css="""
.vp { display: flex; height: 100%; } .vp nav { width: 290px; padding: 20px 28px; font-size: 14px; line-height: 2.1; border-right: 1px solid #eee; }
.vp nav .on { color: #42b883; font-weight: bold; } .vp main { flex: 1; padding: 26px 70px; max-width: 1080px; font-size: 15.5px; line-height: 1.8; }
.vp h1 { font-size: 32px; margin-bottom: 14px; } .vp h2 { font-size: 23px; margin: 20px 0 10px; border-top: 1px solid #eee; padding-top: 16px; }
.vp pre { background: #f6f6f7; padding: 14px 20px; border-radius: 8px; font-family: var(--mono); font-size: 14px; margin: 10px 0; }
.vp .tip { background: #f3f9f6; border-left: 4px solid #42b883; padding: 8px 16px; margin: 10px 0; }
""",
    body="""
<div class="vp"><nav><b>开始</b><div>简介</div><div>快速上手</div><b>基础</b><div>创建一个应用</div><div>模板语法</div><div class="on">响应式基础</div>
<div>计算属性</div><div>类与样式绑定</div><div>条件渲染</div><div>列表渲染</div><div>事件处理</div><div>表单输入绑定</div><div>生命周期</div><div>侦听器</div><div>模板引用</div><div>组件基础</div></nav>
<main><h1>响应式基础</h1><div class="tip">API 参考：本页和后面很多页面中都分别包含了选项式 API 和组合式 API 的示例代码。</div>
<h2>声明响应式状态</h2><p><b>ref()</b></p><p>在组合式 API 中，推荐使用 ref() 函数来声明响应式状态：</p>
<pre>import { ref } from 'vue'

const count = ref(0)</pre>
<p>ref() 接收参数，并将其包裹在一个带有 .value 属性的 ref 对象中返回：</p>
<pre>console.log(count.value) // 0
count.value++</pre>
<h2>为什么要使用 ref？</h2><p>当你在模板中使用了一个 ref，然后改变了这个 ref 的值时，Vue 会自动检测到这个变化，并且相应地更新 DOM。
这是通过一个基于依赖追踪的响应式系统实现的。</p></main></div>""",
)

DOCS_REDIS = Screen(
    key="zh-docs-redis",
    lang="zh",
    app_name="Google Chrome",
    window_name="Redis 缓存穿透、缓存击穿、缓存雪崩的区别与解决方案 - 掘金",
    browser_url="https://juejin.cn/post/7431289046238412836",
    tabs=("Redis 命令参考",),
    when="2026-11-04 11:25",
    css=ZH_PAGE_CSS + ".zp pre { background: #f8f8f8; padding: 10px 14px; font-family: var(--mono); font-size: 13.5px; }",
    body="""
<div class="zp"><div class="cols"><main><h1>Redis 缓存穿透、缓存击穿、缓存雪崩的区别与解决方案</h1>
<div class="muted small">后端老王 &middot; 2026-10-12 &middot; 阅读 18,204 &middot; 点赞 612</div><br>
<p><b>1. 缓存穿透</b>：查询一个根本不存在的数据，缓存和库里都没有，请求每次都直接打到 MySQL。解决：布隆过滤器拦截非法 key；把空值也缓存 60 秒。</p>
<p><b>2. 缓存击穿</b>：某个热点 key 过期的瞬间，大量并发请求同时涌入。解决：互斥锁（SETNX）只让一个线程重建缓存；热点数据设置逻辑过期。</p>
<p><b>3. 缓存雪崩</b>：大批 key 在同一时间过期，或者 Redis 实例宕机，流量全部压到 MySQL。解决：过期时间加随机值；多级缓存；限流与熔断降级；Redis 哨兵或集群保证高可用。</p>
<pre>// 过期时间加随机值，避免同时失效
long ttl = 3600 + ThreadLocalRandom.current().nextInt(600);
redis.opsForValue().set(key, value, ttl, TimeUnit.SECONDS);</pre></main>
<aside><b>目录</b><p>1. 缓存穿透</p><p>2. 缓存击穿</p><p>3. 缓存雪崩</p><p>4. 总结</p><br><b>相关推荐</b><p>MySQL 索引失效的十种场景</p><p>Kafka 消息积压怎么处理</p></aside></div></div>""",
)

TAOBAO_CART = Screen(
    key="zh-taobao-cart",
    lang="zh",
    app_name="Google Chrome",
    window_name="淘宝网 - 我的购物车",
    browser_url="https://cart.taobao.com/cart.htm",
    tabs=("小米空气净化器4 Pro 评测 - 什么值得买",),
    when="2026-11-06 21:30",
    css="""
.tb { padding: 18px 60px; font-size: 14.5px; } .tb .banner { background: #ff5000; color: #fff; padding: 10px 18px; border-radius: 8px; font-size: 17px; margin-bottom: 14px; }
.tb .shop { border: 1px solid #eee; border-radius: 10px; margin-bottom: 12px; padding: 12px 18px; } .tb .shop b { display: block; margin-bottom: 8px; }
.tb .it { display: flex; gap: 18px; align-items: center; padding: 8px 0; } .tb .img { width: 80px; height: 80px; background: #f2f2f2; border-radius: 6px; }
.tb .price { color: #ff5000; font-weight: bold; width: 120px; text-align: right; } .tb .foot { display: flex; gap: 24px; justify-content: flex-end; align-items: center; font-size: 16px; }
.tb .go { background: #ff5000; color: #fff; padding: 10px 34px; border-radius: 22px; }
""",
    body="""
<div class="tb"><div class="banner">双11狂欢价 &middot; 跨店每满300减50 &middot; 11月11日 00:00 开抢</div><b style="font-size:20px">购物车（全部 4）</b><br><br>
<div class="shop"><b>小米官方旗舰店</b><div class="it"><div class="img"></div><div class="grow">小米空气净化器4 Pro 家用除甲醛 除过敏原 智能卧室<br><span class="muted small">颜色：白色</span></div><div>1</div><div class="price">¥1299.00</div></div></div>
<div class="shop"><b>三只松鼠旗舰店</b><div class="it"><div class="img"></div><div class="grow">三只松鼠 每日坚果礼盒 750g/30袋 混合果仁<br><span class="muted small">规格：750g</span></div><div>1</div><div class="price">¥89.90</div></div></div>
<div class="shop"><b>优衣库官方旗舰店</b><div class="it"><div class="img"></div><div class="grow">优衣库 男装 摇粒绒拉链茄克 外套 467231<br><span class="muted small">颜色：09 黑色；尺码：L</span></div><div>1</div><div class="price">¥199.00</div></div></div>
<div class="shop"><b>得力办公旗舰店</b><div class="it"><div class="img"></div><div class="grow">得力 A4 打印纸 70g 500张/包 5包装<br><span class="muted small">规格：70g 5包</span></div><div>1</div><div class="price">¥112.00</div></div></div>
<div class="foot"><span>已选商品 4 件</span><span>合计：<b style="color:#ff5000;font-size:22px">¥1699.90</b></span><span class="go">结算</span></div></div>""",
)

TRAIN_12306 = Screen(
    key="zh-12306",
    lang="zh",
    app_name="Google Chrome",
    window_name="中国铁路12306 - 订单详情",
    browser_url="https://kyfw.12306.cn/otn/view/commonOrder.html",
    tabs=("携程旅行网",),
    when="2026-11-05 11:30",
    css="""
.rw-top { background: #3b99fc; color: #fff; padding: 12px 60px; font-size: 20px; } .rw { padding: 22px 60px; font-size: 15px; max-width: 1300px; }
.rw .box { border: 1px solid #d6e6fb; border-radius: 6px; margin: 12px 0; } .rw .box .h { background: #eef6ff; padding: 8px 16px; }
.rw .box .b { padding: 14px 16px; line-height: 1.9; } .rw table.grid th { background: #f5f9ff; }
""",
    body="""
<div class="rw-top">中国铁路12306 &nbsp; <span style="font-size:14px">首页 &middot; 车票 &middot; 团购服务 &middot; 会员服务 &middot; 站车服务 &middot; 出行指南 &middot; 信息查询</span></div>
<div class="rw"><b style="font-size:20px">订单详情</b><div class="box"><div class="h">订单号：EH82719035 &nbsp; 下单时间：2026-11-05 11:26 &nbsp; 订单状态：<b style="color:#2e9d3a">已支付</b></div>
<div class="b"><b style="font-size:18px">2026-12-24（周四） G1次 北京南站（07:00开）&rarr; 上海虹桥站（11:29到）</b> &nbsp; 历时 04:29</div>
<table class="grid"><tr><th>序号</th><th>乘车人</th><th>证件类型</th><th>证件号码</th><th>票种</th><th>席别</th><th>车厢</th><th>席位号</th><th>票价(元)</th></tr>
<tr><td>1</td><td>陈伟</td><td>中国居民身份证</td><td>1101**********1234</td><td>成人票</td><td>二等座</td><td>05车</td><td>12F号</td><td>553.0</td></tr></table></div>
<p class="muted">温馨提示：1. 请携带购票时所使用的有效身份证件原件，到车站刷证进站乘车。2. 开车前 8 天以上退票，不收取退票费。3. 如需改签，请在开车前办理。</p>
<br><span class="btn">继续购票</span> &nbsp; <span class="btn ghost">改签</span> &nbsp; <span class="btn ghost">退票</span></div>""",
)

CMB_BILL = Screen(
    key="zh-cmb-bill",
    lang="zh",
    app_name="Google Chrome",
    window_name="招商银行信用卡 - 账单查询",
    browser_url="https://xyk.cmbchina.com/credit-online/bill?month=202610",
    tabs=("微信网页版",),
    when="2026-11-06 08:40",
    css="""
.cmb-top { background: #c7000b; color: #fff; padding: 12px 50px; font-size: 19px; } .cmb { padding: 22px 50px; max-width: 1300px; }
.cmb .sum { display: flex; gap: 22px; margin: 14px 0 20px; } .cmb .sum div { flex: 1; background: #fff6f6; border-radius: 8px; padding: 14px 18px; }
.cmb .sum b { display: block; font-size: 26px; color: #c7000b; } .cmb table.grid td { font-size: 14.5px; }
""",
    body="""
<div class="cmb-top">招商银行 信用卡 &nbsp; <span style="font-size:14px">账户总览 &middot; 账单查询 &middot; 还款 &middot; 分期 &middot; 积分</span></div>
<div class="cmb"><b style="font-size:20px">2026年10月账单</b> <span class="muted">（账单日 2026-11-05，卡号尾号 6629）</span>
<div class="sum"><div>本期应还金额<b>¥8,436.20</b></div><div>最低还款额<b>¥843.62</b></div><div>到期还款日<b>2026-11-25</b></div><div>信用额度<b>¥50,000</b></div></div>
<table class="grid"><tr><th>交易日</th><th>记账日</th><th>交易摘要</th><th class="num">人民币金额</th></tr>
<tr><td>10-03</td><td>10-04</td><td>京东商城 Apple iPad Air</td><td class="num">4,399.00</td></tr>
<tr><td>10-08</td><td>10-09</td><td>滴滴出行</td><td class="num">46.50</td></tr>
<tr><td>10-12</td><td>10-13</td><td>星巴克 三里屯店</td><td class="num">38.00</td></tr>
<tr><td>10-15</td><td>10-16</td><td>携程旅行网 机票 PEK-MUC</td><td class="num">3,120.00</td></tr>
<tr><td>10-21</td><td>10-22</td><td>盒马鲜生</td><td class="num">286.70</td></tr>
<tr><td>10-24</td><td>10-25</td><td>中国移动 话费充值</td><td class="num">100.00</td></tr>
<tr><td>10-28</td><td>10-29</td><td>美团外卖</td><td class="num">446.00</td></tr></table>
<br><span class="btn" style="background:#c7000b">立即还款</span> &nbsp; <span class="btn ghost">账单分期</span></div>""",
)

FEISHU_CAL = Screen(
    key="zh-feishu-cal",
    lang="zh",
    app_name="飞书",
    window_name="日历",
    when="2026-11-02 08:50",
    body=calendar(
        side="""<div class="btn" style="margin-bottom:18px">+ 创建日程</div><b>2026年11月</b>
<div class="muted small" style="margin:8px 0 18px;line-height:1.9">一 二 三 四 五 六 日<br>26 27 28 29 30 31 1<br>2 3 4 5 6 7 8<br>9 10 11 12 13 14 15<br>
16 17 18 19 20 21 22<br>23 24 25 26 27 28 29</div><b>我的日历</b><div class="small" style="line-height:2">陈伟<br>产品研发中心<br>中国节假日</div>""",
        days=[("周一", "2"), ("周二", "3"), ("周三", "4"), ("周四", "5"), ("周五", "6"), ("周六", "7"), ("周日", "8")],
        events=[
            (0, 10, 11, "产品周会<br>线上会议", "#3370ff"),
            (1, 14, 15, "与设计团队对齐改版方案", "#7f3bf5"),
            (2, 14, 15.5, "季度复盘会<br>3号会议室", "#f54a45"),
            (3, 10, 11, "面试：李明（后端工程师）", "#14c0ff"),
            (3, 15, 16, "和财务对齐明年预算", "#ff8800"),
            (4, 19, 20, "部门团建 &middot; 海底捞", "#34c724"),
            (5, 9, 11, "羽毛球 &middot; 奥森", "#34c724"),
        ],
    ),
)

QQMAIL_HOLIDAY = Screen(
    key="zh-qqmail-holiday",
    lang="zh",
    app_name="Google Chrome",
    window_name="QQ邮箱 - 关于2027年春节放假安排的通知",
    browser_url="https://wx.mail.qq.com/home/index#/read/ZC2811-1JqHk0RbTf7",
    tabs=("飞书",),
    when="2026-11-03 17:30",
    css="""
.qm { display: flex; height: 100%; } .qm nav { width: 210px; background: #f3f6fb; padding: 16px; line-height: 2.3; font-size: 14.5px; }
.qm .lst { width: 430px; border-right: 1px solid #e5e5e5; } .qm .lst div { padding: 10px 16px; border-bottom: 1px solid #f0f0f0; font-size: 13.5px; }
.qm .lst .on { background: #e8f0fe; } .qm main { flex: 1; padding: 24px 40px; font-size: 15.5px; line-height: 1.9; } .qm h2 { font-size: 22px; margin-bottom: 10px; }
""",
    body="""
<div class="qm"><nav><div class="btn">写信</div><div>收信</div><div>通讯录</div><div><b>收件箱(3)</b></div><div>星标邮件</div><div>草稿箱</div><div>已发送</div><div>已删除</div><div>垃圾箱</div></nav>
<div class="lst"><div class="on"><b>人力资源部</b><br>关于2027年春节放假安排的通知</div><div><b>财务部</b><br>10月报销单据请于本周五前提交</div>
<div><b>行政部</b><br>办公室饮水机更换通知</div><div>京东<br>您的订单已签收</div><div>Apple<br>您的收据来自 Apple</div></div>
<main><h2>关于2027年春节放假安排的通知</h2><div class="muted small">发件人：人力资源部 &lt;hr@hengyuan-tech.cn&gt; &middot; 时间：2026年11月3日 17:12 &middot; 收件人：全体员工</div><br>
<p>各位同事：</p><p>根据国务院办公厅通知，结合实际情况，2027年春节放假安排如下：</p>
<p>2月5日（星期五）至2月13日（星期六）放假调休，共9天。2月14日（星期日）正常上班。</p>
<p>请各部门提前做好工作安排，春节期间值班表请于1月20日前报人力资源部。放假期间请注意人身和财产安全，祝大家新春愉快！</p>
<p class="right">人力资源部<br>2026年11月3日</p></main></div>""",
)

ZHIHU = Screen(
    key="zh-zhihu-wukong",
    lang="zh",
    app_name="Google Chrome",
    window_name="如何评价《黑神话：悟空》的剧情和关卡设计？ - 知乎",
    browser_url="https://www.zhihu.com/question/646352731/answer/3521984472",
    tabs=("黑神话：悟空 on Steam",),
    when="2026-11-07 22:10",
    theme="dark",
    css=ZH_PAGE_CSS + ".zp { background: #121212; color: #d3d3d3; height: 100%; } .zp .tag { display: inline-block; background: #1e2a3a; color: #6fa3ef; padding: 2px 10px; border-radius: 12px; margin-right: 8px; font-size: 13px; }",
    body="""
<div class="zp"><div><span class="tag">单机游戏</span><span class="tag">国产游戏</span><span class="tag">黑神话：悟空</span></div><br>
<h1>如何评价《黑神话：悟空》的剧情和关卡设计？</h1><div class="muted small">关注者 12,843 &middot; 被浏览 38,920,117</div><br>
<div class="cols"><main><b>游研社老K</b> <span class="muted small">资深玩家</span><br><span class="muted small">2.1 万人赞同了该回答</span>
<p>通关两周目说几点。剧情上，每一回结尾的动画短片是全作最惊艳的部分，第四回盘丝洞的短片讲蜘蛛精和猪八戒的往事，几乎是一部独立的动画电影。</p>
<p>关卡设计前三回很扎实，第三回小西天的雪地地图很大，但路线引导不够，很多人在找黄眉之前迷路。第五回火焰山的空气墙问题比较明显。</p>
<p>BOSS 战是最大亮点：虎先锋、二郎神都有很高的完成度。隐藏结局需要集齐六根，建议看攻略再走，否则容易错过。</p>
<p>总的来说，瑕不掩瑜，作为第一部国产3A，值得一玩。</p></main>
<aside><b>相关问题</b><p>黑神话悟空第六回值得玩吗？</p><p>二郎神为什么要帮天命人？</p><p>有哪些好玩的国产单机推荐？</p></aside></div></div>""",
)

MEITUAN = Screen(
    key="zh-meituan",
    lang="zh",
    app_name="Google Chrome",
    window_name="订单详情 - 美团外卖",
    browser_url="https://h5.waimai.meituan.com/waimai/mindex/order/detail?orderId=60117293840128",
    tabs=("微信网页版",),
    when="2026-11-06 12:05",
    css="""
.mt { background: #f5f5f5; height: 100%; display: flex; justify-content: center; padding-top: 16px; }
.mt .phone { width: 480px; font-size: 15px; } .mt .card { background: #fff; border-radius: 10px; padding: 14px 18px; margin-bottom: 12px; }
.mt .big { font-size: 22px; font-weight: bold; } .mt .li { display: flex; padding: 6px 0; } .mt .li span:last-child { margin-left: auto; }
""",
    body="""
<div class="mt"><div class="phone"><div class="card"><div class="big">骑手正在送餐</div><div>预计 12:35 送达 &middot; 骑手 张师傅 正在赶往您的位置</div>
<div class="small muted">距您 1.2 公里 &middot; 联系骑手</div></div>
<div class="card"><b>川味坊&middot;麻辣香锅（望京店）</b>
<div class="li"><span>麻辣香锅（中辣，加土豆、藕片、午餐肉）</span><span>¥58</span></div><div class="li"><span>米饭 &times;2</span><span>¥4</span></div>
<div class="li"><span>冰红茶</span><span>¥5</span></div><div class="li"><span>打包费</span><span>¥2</span></div><div class="li"><span>配送费</span><span>¥3</span></div>
<div class="li"><span>满减优惠</span><span style="color:#f63">-¥15</span></div><div class="li"><b>实付</b><span><b>¥57</b></span></div></div>
<div class="card small">收货地址：北京市朝阳区望京西园四区 412号楼 3单元 502<br>陈建国（先生） 138****6621<br>订单号：60117293840128 &middot; 下单时间 11:48</div></div></div>""",
)

XHS_RECIPE = Screen(
    key="zh-xhs-recipe",
    lang="zh",
    app_name="Google Chrome",
    window_name="家常红烧肉｜零失败做法，肥而不腻 - 小红书",
    browser_url="https://www.xiaohongshu.com/explore/6721f0a3000000001b01e5c2",
    tabs=("下厨房",),
    when="2026-11-07 17:40",
    size=(1440, 900),
    css="""
.xhs { display: flex; height: 100%; padding: 20px 60px; gap: 30px; } .xhs .photo { width: 560px; height: 720px; background: #b5651d; border-radius: 12px; }
.xhs .note { flex: 1; font-size: 15px; line-height: 1.85; } .xhs h1 { font-size: 22px; margin-bottom: 10px; } .xhs .tag { color: #13386c; }
""",
    body="""
<div class="xhs"><div class="photo"></div><div class="note"><div><b>阿芝的小厨房</b> &nbsp; <span class="btn" style="background:#ff2442">关注</span></div><br>
<h1>家常红烧肉｜零失败做法，肥而不腻</h1>
<p>食材：五花肉500克、冰糖15克、生抽2勺、老抽1勺、料酒2勺、姜片、葱段、八角2颗、桂皮一小块</p>
<p>1. 五花肉切3厘米见方的块，冷水下锅，加料酒和姜片焯水，撇去浮沫后捞出洗净。</p>
<p>2. 锅里少许油，放冰糖小火慢慢炒出枣红色的糖色，倒入肉块翻炒上色。</p>
<p>3. 加生抽、老抽、八角、桂皮，倒入没过肉的开水，小火炖45分钟。</p>
<p>4. 最后大火收汁，汤汁浓稠发亮就可以出锅啦！</p>
<p class="tag">#红烧肉 #家常菜 #下饭菜 #美食教程</p><div class="muted small">11-01 北京 &middot; 赞 3.2万 &middot; 收藏 5.6万 &middot; 评论 1280</div></div></div>""",
)

CODE_RETENTION = Screen(
    key="zh-code-retention",
    lang="zh",
    app_name="Code",
    window_name="retention.py - analytics - Visual Studio Code",
    when="2026-11-04 16:50",
    body=editor(
        tree=["ANALYTICS", " notebooks", "  留存分析.ipynb", " pipelines", "  retention.py", "  funnel.py", "  sql", "   cohorts.sql", " tests", " README.md"],
        active_file="retention.py",
        tabs=["retention.py", "funnel.py", "cohorts.sql"],
        crumbs="pipelines > retention.py > retention_by_cohort",
        light=True,
        code='''
import pandas as pd

# 计算每周新增用户的次日、7日、30日留存率
# 注意：时区统一用 Asia/Shanghai，否则跨天的活跃会被算错

DAYS = (1, 7, 30)


def retention_by_cohort(events: pd.DataFrame) -> pd.DataFrame:
    """按注册周分组，统计每个 cohort 在第 N 天仍然活跃的用户比例。"""
    events = events.assign(ts=events.ts.dt.tz_convert("Asia/Shanghai"))
    signups = events[events.event == "signup"].groupby("user_id").ts.min().rename("signup_ts")
    active = events[events.event == "app_open"].join(signups, on="user_id")
    active["day"] = (active.ts.dt.normalize() - active.signup_ts.dt.normalize()).dt.days
    cohort = signups.dt.to_period("W").rename("cohort")
    sizes = cohort.value_counts()  # 每个 cohort 的新增用户数
    rows = {}
    for n in DAYS:
        kept = active[active.day == n].drop_duplicates("user_id").join(cohort, on="user_id")
        rows[f"d{n}"] = kept.cohort.value_counts() / sizes  # 第 n 天留存率
    return pd.DataFrame(rows).sort_index()
''',
        status=["main*", "Python 3.11.9", "行 9，列 42", "空格: 4", "UTF-8", "LF"],
    ),
)

HEALTH_REPORT = Screen(
    key="zh-health-report",
    lang="zh",
    app_name="预览",
    window_name="2026年度体检报告_陈伟.pdf（第3页，共12页）",
    when="2026-11-05 21:00",
    size=(1440, 900),
    menus=("文件", "编辑", "显示", "前往", "工具", "窗口", "帮助"),
    css="""
.pdf .page { width: 820px; font-size: 14px; line-height: 1.8; } .pdf table.grid td, .pdf table.grid th { padding: 4px 8px; }
.pdf h1 { text-align: center; font-size: 24px; color: #0b6e4f; } .pdf .up { color: #d32f2f; font-weight: bold; }
""",
    body="""
<div class="pdf"><div class="page"><h1>美年大健康 体检报告</h1>
<div>姓名：陈伟 &nbsp; 性别：男 &nbsp; 年龄：34 &nbsp; 体检日期：2026-10-30 &nbsp; 体检编号：MN20261030-0472</div><br>
<b>一般项目</b><table class="grid"><tr><th>项目</th><th>结果</th><th>参考范围</th><th>提示</th></tr>
<tr><td>体重指数（BMI）</td><td>26.1</td><td>18.5-23.9</td><td class="up">偏高</td></tr><tr><td>血压</td><td>138/88 mmHg</td><td>90-139/60-89</td><td class="up">临界</td></tr></table>
<b>血脂四项</b><table class="grid"><tr><td>总胆固醇</td><td>6.12 mmol/L</td><td>&lt;5.18</td><td class="up">&uarr;</td></tr>
<tr><td>低密度脂蛋白</td><td>4.05 mmol/L</td><td>&lt;3.37</td><td class="up">&uarr;</td></tr><tr><td>甘油三酯</td><td>1.95 mmol/L</td><td>&lt;1.70</td><td class="up">&uarr;</td></tr></table>
<b>肝功能</b>：谷丙转氨酶 52 U/L <span class="up">&uarr;</span> &nbsp; <b>腹部B超</b>：轻度脂肪肝<br><br>
<b>总检建议</b><div>1. 低盐低脂饮食，每周运动3次以上，每次不少于30分钟。</div><div>2. 三个月后复查血脂和肝功能。</div><div>3. 必要时到心内科就诊。</div></div></div>""",
)

FEISHU_ROADMAP = Screen(
    key="zh-feishu-roadmap",
    lang="zh",
    app_name="飞书",
    window_name="2027 产品路线图（草稿） - 飞书云文档",
    when="2026-11-05 16:25",
    theme="dark",
    css="""
.fs { display: flex; height: 100%; background: #1b1b1b; } .fs nav { width: 260px; padding: 16px; font-size: 14px; line-height: 2.1; color: #a6a6a6; border-right: 1px solid #333; }
.fs main { flex: 1; padding: 30px 120px; font-size: 16px; line-height: 1.9; color: #e0e0e0; max-width: 1300px; } .fs h1 { font-size: 32px; margin-bottom: 6px; }
.fs h2 { font-size: 21px; margin: 18px 0 6px; }
""",
    body="""
<div class="fs"><nav><b style="color:#eee">云文档</b><div>主页</div><div>我的空间</div><div>共享空间</div><div>知识库</div><div>&nbsp; 产品研发中心</div><div>&nbsp;&nbsp; 2027 产品路线图（草稿）</div><div>&nbsp;&nbsp; 竞品分析</div></nav>
<main><h1>2027 产品路线图（草稿）</h1><div class="muted small">负责人：陈伟 &middot; 最近修改：今天 16:20 &middot; 3 人正在查看</div>
<h2>一、目标</h2><div>年度经常性收入（ARR）从 1200 万元增长到 3000 万元；企业客户数翻倍。</div>
<h2>二、季度规划</h2><div>Q1：完成多租户权限改造，支持按部门分配管理员</div><div>Q2：上线 AI 助手（知识库问答、会议纪要自动生成）</div>
<div>Q3：开放 API 平台与应用市场，首批接入 20 家合作伙伴</div><div>Q4：私有化部署版本，满足金融和政务客户的合规要求</div>
<h2>三、风险</h2><div>大模型调用成本；数据出境合规；销售团队扩张速度</div></main></div>""",
)

SCREENS_ZH = [
    WECHAT_HIKE, WECHAT_MOM, NEWS_CPI, DOCS_VUE, DOCS_REDIS, TAOBAO_CART, TRAIN_12306, CMB_BILL, FEISHU_CAL, QQMAIL_HOLIDAY,
    ZHIHU, MEITUAN, XHS_RECIPE, CODE_RETENTION, HEALTH_REPORT, FEISHU_ROADMAP,
]
