#!/bin/bash
# mixed Chinese/English terminal session (xfce4-terminal)
. "$(dirname "$0")/session_common.sh"
P_USER=wanglei; P_HOST=release-01; HOME_FAKE=/tmp/hs/home/wanglei
mkdir -p /tmp/hs/home/wanglei/shop-api && cd /tmp/hs/home/wanglei/shop-api
export GIT_AUTHOR_NAME="王磊" GIT_AUTHOR_EMAIL=wl@example.org GIT_COMMITTER_NAME="王磊" GIT_COMMITTER_EMAIL=wl@example.org
rm -rf .git; git init -q .; git config commit.gpgsign false
for m in "初始化项目结构" "修改 deployment-redis.yaml 里的 replicas 配置" "修复订单金额计算错误 parse_order_total" "增加缓存过期时间配置" "更新部署文档和回滚说明" "优化数据库连接池参数"; do
  echo "$m" >> 变更记录.txt; git add -A; git commit -q -m "$m"; done
cp /work/main/tests/hard_screens/sources/mixed_zh_notes.txt 上线记录.md
clear
run git log --oneline
run "cat 上线记录.md"
run "python3 -c \"raise SystemExit('运行 load_config() 失败：找不到 config.toml')\""
run ls
printf '\033[1;32m%s@%s\033[0m:\033[1;34m%s\033[0m$ ' "$P_USER" "$P_HOST" "~/shop-api"
sleep 600
