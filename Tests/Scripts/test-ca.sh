#!/usr/bin/env bash
# The TLS tests' certificates, made fresh with openssl into DIR (default Tests/Fixtures/out-tls):
#   ca.pem                 a test authority "aether test authority" (its key is deleted once the
#                          leaves are signed: nobody can sign with it afterwards)
#   localhost.pem/.key     signed by it, for 127.0.0.1 and localhost
#   evil.pem/.key          signed by it, for evil.example only (a wrong host when served on 127.0.0.1)
#   self-signed.pem/.key   signed by nobody, for 127.0.0.1
#   garbage.pem            a "certificate chain" of garbage
#   test-ca.sh [DIR] [--install | --uninstall]
# --install puts ca.pem into the system store (/usr/local/share/ca-certificates, then
# update-ca-certificates; root), --uninstall takes it out again (test.sh does both around a run).
set -euo pipefail
# shellcheck source=needs.sh
source "$(dirname "${BASH_SOURCE[0]}")/needs.sh"
needs test-ca openssl=openssl
cd "$(dirname "$0")/../.."
dir=Tests/Fixtures/out-tls
action=
for a in "$@"; do
    case "$a" in
        --install|--uninstall) action=$a ;;
        *) dir=$a ;;
    esac
done
store=/usr/local/share/ca-certificates/aether-test-ca.crt
if [ "$action" = --uninstall ]; then
    if [ -f "$store" ]; then rm -f "$store"; update-ca-certificates --fresh >/dev/null 2>&1 || true; fi
    exit 0
fi
mkdir -p "$dir"
if [ ! -s "$dir/localhost.pem" ] || [ ! -s "$dir/ca.pem" ]; then
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=aether test authority" \
        -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
        -keyout "$work/ca.key" -out "$dir/ca.pem" 2>/dev/null
    leaf() {  # NAME SUBJECT-ALT-NAMES
        openssl req -newkey rsa:2048 -nodes -subj "/CN=$1" -keyout "$dir/$1.key" -out "$work/$1.csr" 2>/dev/null
        printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$2" >"$work/$1.ext"
        openssl x509 -req -in "$work/$1.csr" -CA "$dir/ca.pem" -CAkey "$work/ca.key" -CAcreateserial \
            -days 3650 -extfile "$work/$1.ext" -out "$dir/$1.pem" 2>/dev/null
    }
    leaf localhost "IP:127.0.0.1,DNS:localhost"
    leaf evil "DNS:evil.example"
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
        -keyout "$dir/self-signed.key" -out "$dir/self-signed.pem" 2>/dev/null
    rm -f "$dir/ca.srl"
    printf -- '-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n' >"$dir/garbage.pem"
fi
if [ "$action" = --install ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "test-ca.sh: not root: the test authority is not put into the system store (the system-store TLS test fails)" >&2
        exit 0
    fi
    if ! cmp -s "$dir/ca.pem" "$store" 2>/dev/null; then
        mkdir -p "$(dirname "$store")"
        cp "$dir/ca.pem" "$store"
        update-ca-certificates >/dev/null 2>&1
    fi
fi
