# sourced by the session_*.sh scripts: fake interactive prompt + run the command for real
P_USER=${P_USER:-marta}; P_HOST=${P_HOST:-build-box-07}
run() { printf '\033[1;32m%s@%s\033[0m:\033[1;34m%s\033[0m$ %s\n' "$P_USER" "$P_HOST" "${PWD/#$HOME_FAKE/\~}" "$*"; eval "$@"; }
