# Sourced, not run: the one check of the programs a script calls, at its start.
#
#   needs WHO PROGRAM=PACKAGE...   every PROGRAM on PATH, or one line naming each one missing and
#                                  the Debian package that has it (install-deps.sh installs them
#                                  all), and exit 1
needs() {
    local who=$1 pair missing=()
    shift
    for pair in "$@"; do
        command -v "${pair%%=*}" >/dev/null 2>&1 || missing+=("${pair%%=*} (package ${pair#*=})")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local list
    list=$(printf '%s, ' "${missing[@]}")
    echo "$who: missing ${list%, }: bash Tests/Scripts/install-deps.sh installs them" >&2
    exit 1
}
