#!/usr/bin/env bash
# A TPP that is not written in Go, in curl and openssl only: it makes its own
# self-signed certificate, signs requests as the bank demands and drives the
# fake bank (xs2a fakebank) at the base URL given as the first argument.
#
#   xs2a fakebank -addr 127.0.0.1:8080 &
#   bash curl-client.sh http://127.0.0.1:8080/api
#
# It resets the sandbox, lists the sandbox customers, is refused (400) when it
# does not sign, and gets 401 with a scaRedirect link for GET /v1/accounts
# when it signs. It exits non-zero, saying why, at the first step that fails.
set -euo pipefail

BASE=${1:?usage: curl-client.sh BASE_URL}
REDIRECT_URI=https://tpp.example/callback
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. A self-signed certificate: the fake bank checks signatures, not CAs.
openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=Script TPP TEST ONLY/O=Example TPP/C=NO" \
  -keyout "$work/key.pem" -out "$work/cert.pem" 2>/dev/null

# keyId: SN=<serial in upper-case hex, no leading zeros>,CA=<issuer in RFC 2253 form>.
serial=$(openssl x509 -in "$work/cert.pem" -noout -serial | cut -d= -f2 | tr 'a-f' 'A-F' | sed 's/^0*//')
issuer=$(openssl x509 -in "$work/cert.pem" -noout -issuer -nameopt RFC2253 | sed 's/^issuer=//')
keyid="SN=$serial,CA=$issuer"
# TPP-Signature-Certificate: the certificate's DER in base64, on one line.
certb64=$(openssl x509 -in "$work/cert.pem" -outform DER | base64 | tr -d '\n')

# X-Request-ID: a random (version 4) UUID.
uuid() {
  local h
  h=$(openssl rand -hex 16)
  printf '%s-%s-4%s-8%s-%s\n' "${h:0:8}" "${h:8:4}" "${h:13:3}" "${h:17:3}" "${h:20:12}"
}

# signed METHOD PATH [BODY]: sends a signed request, prints "STATUS" then the
# body. Date, Digest (for POST and PUT), X-Request-ID and TPP-Redirect-URI
# are signed in this order; the signing string is "name: value" lines joined
# by newlines, signed with RSA PKCS#1 v1.5 over SHA-256.
signed() {
  local method=$1 path=$2 body=${3:-}
  local date digest reqid str sig names
  date=$(LC_ALL=C date -u '+%a, %d %b %Y %H:%M:%S GMT')
  reqid=$(uuid)
  str="date: $date"
  names="date"
  local -a extra=()
  if [ "$method" = POST ] || [ "$method" = PUT ]; then
    digest="SHA-256=$(printf '%s' "$body" | openssl dgst -sha256 -binary | base64)"
    str+=$'\n'"digest: $digest"
    names+=" digest"
    extra=(-H "Digest: $digest" -H "Content-Type: application/json" --data-binary "$body")
  fi
  str+=$'\n'"x-request-id: $reqid"$'\n'"tpp-redirect-uri: $REDIRECT_URI"
  names+=" x-request-id tpp-redirect-uri"
  sig=$(printf '%s' "$str" | openssl dgst -sha256 -sign "$work/key.pem" | base64 | tr -d '\n')
  curl -sS -k -o "$work/body" -w '%{http_code}\n' -X "$method" "$BASE$path" \
    -H "Date: $date" -H "X-Request-ID: $reqid" -H "TPP-Redirect-URI: $REDIRECT_URI" \
    -H "TPP-Signature-Certificate: $certb64" \
    -H "Signature: keyId=\"$keyid\",algorithm=\"rsa-sha256\",headers=\"$names\",signature=\"$sig\"" \
    "${extra[@]}"
  cat "$work/body"
}

expect() { # expect STATUS WHAT OUTPUT
  local got
  got=$(head -n1 <<<"$3")
  [ "$got" = "$1" ] || fail "$2: want status $1, got $got: $(tail -n +2 <<<"$3")"
  echo "ok: $2 ($1)"
}

out=$(signed POST /v1/sandbox/initialize)
case $(head -n1 <<<"$out") in
  200 | 204) echo "ok: reset the sandbox" ;;
  *) fail "reset the sandbox: $out" ;;
esac

out=$(signed GET /v1/sandbox/customers)
expect 200 "list the sandbox customers" "$out"
grep -q '"customerNumber"' <<<"$out" || fail "customers: no customerNumber in $out"

out=$(curl -sS -k -w '\n%{http_code}' "$BASE/v1/accounts" -H "X-Request-ID: $(uuid)" -H "TPP-Redirect-URI: $REDIRECT_URI")
status=$(tail -n1 <<<"$out")
[ "$status" = 400 ] || fail "unsigned GET /v1/accounts: want 400, got $status: $out"
echo "ok: refused unsigned (400)"

out=$(signed GET /v1/accounts)
expect 401 "signed GET /v1/accounts asks for SCA" "$out"
grep -q '"scaRedirect"' <<<"$out" || fail "accounts: no scaRedirect link in $out"
echo "PASS"
