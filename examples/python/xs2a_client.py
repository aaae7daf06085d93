#!/usr/bin/env python3
"""A TPP written in Python that runs the whole flow against `xs2a fakebank`.

Usage:
    xs2a fakebank -addr 127.0.0.1:8080 &
    python3 xs2a_client.py http://127.0.0.1:8080/api

It needs the Python 3 standard library and the `cryptography` package
(Debian: apt-get install -y python3-cryptography). It makes its own
self-signed certificate (TEST ONLY: the fake bank checks signatures, not
CAs), signs every request as docs/non-go-tpps.md says, and walks through:
the sandbox customers, account access with SCA (the SCA page driven
headlessly through its HTML form), accounts, balances, transaction pages
with pending entries, a payment signed at the SCA page and polled until
accepted, and a second payment cancelled. It prints a transcript and exits
non-zero at the first step that fails, saying why.
"""

import argparse
import base64
import datetime
import email.utils
import hashlib
import html.parser
import http.cookiejar
import json
import ssl
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.x509.oid import NameOID

# The callback the bank sends the PSU's browser to after SCA. This client
# never serves it: it reads the redirect's Location instead of following it.
REDIRECT_URI = "https://tpp.example/callback"

# The headers the signature covers, in this order, each when the request
# holds it (docs/non-go-tpps.md, "Sign requests").
SIGNED_HEADERS = ["date", "digest", "x-request-id", "psu-id", "psu-corporate-id", "tpp-redirect-uri"]

# Payment statuses that end a poll (docs/interface.md PS9): the PSU signed
# and the bank accepted the payment, or it was refused.
ACCEPTED = {"PDNG", "ACTC", "ACCP", "ACSP", "ACWC", "ACWP", "ACCC", "ACSC"}
REFUSED = {"RJCT", "CANC"}


class Failure(Exception):
    """A step of the flow did not go as the bank's interface says."""


def log(line):
    print(line, flush=True)


def check(ok, what):
    if not ok:
        raise Failure(what)


class Certificate:
    """A self-signed RSA certificate and its key, made for this run. TEST ONLY."""

    def __init__(self):
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        name = x509.Name([
            x509.NameAttribute(NameOID.COUNTRY_NAME, "NO"),
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Example TPP"),
            x509.NameAttribute(NameOID.COMMON_NAME, "Python TPP TEST ONLY"),
        ])
        now = datetime.datetime.now(datetime.timezone.utc)
        self.cert = (
            x509.CertificateBuilder()
            .subject_name(name)
            .issuer_name(name)
            .public_key(self.key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1))
            .not_valid_after(now + datetime.timedelta(days=30))
            .sign(self.key, hashes.SHA256())
        )
        # keyId: the serial in upper-case hex (no leading zeros) and the
        # issuer in RFC 2253 form: the last RDN first, CN=...,O=...,C=NO.
        # RFC 4514 (cryptography's writer) is RFC 2253's successor and
        # writes names of RFC 2253's keywords (CN, L, ST, O, OU, C, STREET,
        # DC, UID) the same way; an issuer with other attributes needs
        # them as <oid>=#<hex of the DER value> (docs/non-go-tpps.md).
        self.key_id = "SN=%X,CA=%s" % (self.cert.serial_number, self.cert.issuer.rfc4514_string())
        der = self.cert.public_bytes(serialization.Encoding.DER)
        self.header = base64.b64encode(der).decode("ascii")

    def sign(self, data):
        """rsa-sha256: RSA PKCS#1 v1.5 over SHA-256."""
        return self.key.sign(data, padding.PKCS1v15(), hashes.SHA256())


class NoRedirects(urllib.request.HTTPRedirectHandler):
    """Redirects are answers to read, never to follow: a signed request must
    not be sent again elsewhere, and the SCA's last redirect goes to the TPP."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class Answer:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body

    def json(self):
        try:
            return json.loads(self.body.decode("utf-8"))
        except ValueError as e:
            raise Failure("the answer is not JSON: %s: %r" % (e, self.body[:200]))

    def error_codes(self):
        if not self.body.startswith(b"{"):
            return []
        return [m.get("code") for m in self.json().get("tppMessages", [])]


class Bank:
    """The bank at base (its base address, base path included)."""

    def __init__(self, base, cert, insecure=False):
        self.base = base.rstrip("/")
        self.origin = "{0.scheme}://{0.netloc}".format(urllib.parse.urlsplit(self.base))
        self.cert = cert
        handlers = [NoRedirects(), urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())]
        if insecure:  # xs2a fakebank -tls: a self-signed test certificate
            ctx = ssl.create_default_context()
            ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
            handlers.append(urllib.request.HTTPSHandler(context=ctx))
        self.opener = urllib.request.build_opener(*handlers)

    def resolve(self, href):
        """A _links href is a path below the base address, base path kept:
        /v1/accounts/x/balances under https://bank/api is
        https://bank/api/v1/accounts/x/balances (urljoin would drop /api).
        An absolute href must stay on the bank's origin."""
        if "://" in href:
            check(href.startswith(self.origin + "/"), "a link leaves the bank's origin: " + href)
            return href
        check(href.startswith("/"), "a link is not a path: " + href)
        return self.base + href

    def send(self, method, url, headers, body=None):
        req = urllib.request.Request(url, data=body, method=method, headers=headers)
        try:
            with self.opener.open(req, timeout=30) as resp:
                return Answer(resp.status, resp.headers, resp.read())
        except urllib.error.HTTPError as e:  # 3xx (not followed), 4xx, 5xx
            return Answer(e.code, e.headers, e.read())

    def call(self, method, path, body=None, psu=None, signed=True):
        """Sends a request to the API (path below the base address, or a
        link's href) and returns the answer. body is a dict sent as compact
        JSON; psu holds PSU and session headers."""
        url = self.resolve(path)
        data = None
        headers = {
            "Accept": "application/json",
            "Date": email.utils.formatdate(usegmt=True),  # RFC 7231: Wed, 12 Mar 2025 10:00:00 GMT
            "X-Request-ID": str(uuid.uuid4()),
            "TPP-Redirect-URI": REDIRECT_URI,
        }
        headers.update(psu or {})
        if body is not None:
            data = json.dumps(body, separators=(",", ":")).encode("utf-8")  # compact: the Digest covers these bytes
            headers["Content-Type"] = "application/json"
        if method in ("POST", "PUT") or data is not None:
            headers["Digest"] = "SHA-256=" + base64.b64encode(hashlib.sha256(data or b"").digest()).decode("ascii")
        if signed:
            self.sign(headers)
        answer = self.send(method, url, headers, data)
        codes = answer.error_codes() if answer.status >= 400 else []
        log("  %s %s -> %d%s" % (method, url[len(self.base):], answer.status, (" " + ",".join(codes)) if codes else ""))
        return answer

    def sign(self, headers):
        lower = {k.lower(): v for k, v in headers.items()}
        names = [h for h in SIGNED_HEADERS if h in lower]
        signing_string = "\n".join("%s: %s" % (h, lower[h]) for h in names)  # no newline at the end
        signature = base64.b64encode(self.cert.sign(signing_string.encode("utf-8"))).decode("ascii")
        headers["Signature"] = 'keyId="%s",algorithm="rsa-sha256",headers="%s",signature="%s"' % (
            self.cert.key_id, " ".join(names), signature)
        headers["TPP-Signature-Certificate"] = self.cert.header


class Form(html.parser.HTMLParser):
    """The one form of an SCA page: its action, its inputs and buttons, and
    the page's error text (id="error")."""

    def __init__(self, page):
        super().__init__()
        self.action, self.inputs, self.buttons, self.error = None, [], [], None
        self._in_error = False
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.action = a.get("action")
        elif tag == "input":
            self.inputs.append(a)
        elif tag == "button":
            self.buttons.append(a)
        elif a.get("id") == "error":
            self._in_error = True

    def handle_data(self, data):
        if self._in_error:
            self.error = (self.error or "") + data

    def handle_endtag(self, tag):
        self._in_error = False

    def step(self):
        for i in self.inputs:
            if i.get("type") == "hidden" and i.get("name") == "step":
                return i.get("value")
        return None

    def values(self, name, kind):
        return [i.get("value") for i in self.inputs if i.get("name") == name and i.get("type") == kind]

    def checked(self, name):
        return [i.get("value") for i in self.inputs if i.get("name") == name and "checked" in i]

    def fields(self):
        """What a browser sends without the PSU touching anything: every
        hidden input (the step, and whatever else the bank puts there)."""
        return [(i["name"], i.get("value", "")) for i in self.inputs if i.get("type") == "hidden" and "name" in i]


def drive_sca(bank, sca_redirect, national_id, context="PRIVATE"):
    """Plays the PSU's browser on the SCA pages behind sca_redirect: signs
    in with the national id, picks the context, ticks every offered account
    (consent) or the first offered debtor, confirms or signs. Returns the
    callback's query parameters, read from the last redirect's Location
    without following it to the TPP."""
    url = bank.resolve(sca_redirect)
    method, data = "GET", None
    for _ in range(10):
        headers = {"Accept": "text/html"}
        if data is not None:  # as a browser posts a form
            headers.update({"Content-Type": "application/x-www-form-urlencoded", "Origin": bank.origin})
        answer = bank.send(method, url, headers, data)
        if answer.status == 303:
            location = urllib.parse.urljoin(url, answer.headers["Location"])
            if location.startswith(REDIRECT_URI):
                log("  SCA page -> 303 to the TPP-Redirect-URI")
                return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
            check(location.startswith(bank.origin + "/"), "the SCA page redirects elsewhere: " + location)
            url, method, data = location, "GET", None
            continue
        page = answer.body.decode("utf-8", "replace")
        form = Form(page)
        check(answer.status == 200, "the SCA page answered %d: %s" % (answer.status, (form.error or "").strip()))
        step = form.step()
        check(step is not None and form.action, "the SCA page has no form")
        fields = form.fields()
        if step == "login":
            fields += [("nationalId", national_id), ("action", "next")]
        elif step == "context":
            offered = form.values("choice", "radio")
            pick = [v for v in offered if v == context or v.startswith(context + ":")]
            check(pick, "the SCA page does not offer the context %s: %s" % (context, offered))
            fields += [("choice", pick[0]), ("action", "next")]
        elif step == "accounts":
            fields += [("account", v) for v in form.values("account", "checkbox")] + [("action", "confirm")]
        elif step == "debtor":
            offered = form.values("debtor", "radio")
            check(offered, "the SCA page offers no account to pay from")
            fields += [("debtor", offered[0]), ("action", "next")]
        else:  # confirm (and app: confirmed in the bank's app)
            fields += [("action", "confirm")]
        log("  SCA page, step %s: %s" % (step, ", ".join("%s=%s" % kv for kv in fields if kv[0] != "step")))
        url = urllib.parse.urljoin(url, form.action)
        method, data = "POST", urllib.parse.urlencode(fields).encode("ascii")
    raise Failure("the SCA did not finish")


def expect(answer, status, what):
    if answer.status != status:
        raise Failure("%s: want status %d, got %d: %s" % (what, status, answer.status, answer.body[:300]))
    return answer.json() if answer.body else None


def account_access(bank):
    log("1. sandbox customers")
    expect(bank.call("POST", "/v1/sandbox/initialize"), 204, "reset the sandbox")
    customers = expect(bank.call("GET", "/v1/sandbox/customers?includeAccounts=true"), 200, "list the customers")["customers"]
    for c in customers:
        log("  %s %-9s %-22s %s" % (c["customerNumber"], c["customerType"], c["name"],
                                     " ".join(a.get("bban") or a.get("maskedPan", "") for a in c.get("accounts", []))))
    private = [c for c in customers if c["customerType"] == "PRIVATE"]
    check(len(private) >= 2, "the sandbox has fewer than two private customers")
    psu_customer, creditor_customer = private[0], private[1]

    log("2. refusals")
    answer = bank.call("GET", "/v1/accounts", signed=False)
    check(answer.status == 400 and "SIGNATURE_MISSING" in answer.error_codes(),
          "an unsigned request: want 400 SIGNATURE_MISSING, got %d %s" % (answer.status, answer.error_codes()))

    log("3. account access: 401 with scaRedirect, the SCA page, the callback")
    session = {"TPP-Session-ID": str(uuid.uuid4())}
    answer = bank.call("GET", "/v1/accounts", psu=session)
    body = expect(answer, 401, "GET /v1/accounts before consent")
    sca = body.get("_links", {}).get("scaRedirect", {}).get("href")
    check(sca, "the 401 has no _links.scaRedirect: %s" % body)
    callback = drive_sca(bank, sca, psu_customer["customerNumber"])
    check("psu-id" in callback, "the callback has no psu-id: %s" % callback)
    check(callback.get("tpp-session-id") == session["TPP-Session-ID"], "the callback's tpp-session-id is not ours")
    log("  callback: context=%s, psu-id received" % callback.get("context"))
    psu = dict(session, **{"PSU-ID": callback["psu-id"], "PSU-IP-Address": "192.0.2.10"})

    log("4. accounts, balances, transactions")
    accounts = expect(bank.call("GET", "/v1/accounts", psu=psu), 200, "GET /v1/accounts")["accounts"]
    check(accounts, "no account was consented")
    for a in accounts:
        log("  account %s %s %s" % (a["bban"], a["currency"], a["name"]))
    account = accounts[0]
    balances = expect(bank.call("GET", account["_links"]["balances"]["href"], psu=psu), 200, "balances")["balances"]
    for b in balances:
        log("  balance %-16s %s %s" % (b["balanceType"], b["balanceAmount"]["amount"], b["balanceAmount"]["currency"]))
    read_transactions(bank, account, psu)
    return psu, psu_customer, account, creditor_customer


def read_transactions(bank, account, psu):
    """Booked entries page by page along _links.next; every pending entry
    comes on every page (bookingStatus both), so they are read once."""
    href = account["_links"]["transactions"]["href"] + "?bookingStatus=both&limit=100"
    pages, booked, pending = 0, [], None
    while href:
        check(pages < 100, "more than 100 pages: the next links do not end")
        report = expect(bank.call("GET", href, psu=psu), 200, "transactions")["transactions"]
        pages += 1
        booked += report.get("booked", [])
        if pending is None:
            pending = report.get("pending", [])
        else:
            check(len(report.get("pending", [])) == len(pending), "pending entries differ between pages")
        href = report.get("_links", {}).get("next", {}).get("href")
    check(pages > 1, "want several pages of 100 booked entries, got one")
    check(all("valueDate" not in t for t in pending), "a pending entry has a valueDate")
    for t in booked[:3]:
        log("  booked  %s %s %s" % (t.get("bookingDate"), t["transactionAmount"]["amount"],
                                   t.get("remittanceInformationUnstructured") or t.get("creditorName") or ""))
    for t in pending[:3]:
        log("  pending %s %s" % (t["transactionAmount"]["amount"], t.get("remittanceInformationUnstructured") or ""))
    log("  %d pages, %d booked entries, %d pending entries (on every page)" % (pages, len(booked), len(pending)))


def payment_body(debtor, creditor, text):
    return {
        "instructedAmount": {"currency": "NOK", "amount": "10.00"},
        "debtorAccount": {"bban": debtor["bban"]},
        "creditorAccount": {"bban": creditor["bban"]},
        "creditorName": "Ola Nordmann",
        "remittanceInformationUnstructured": text,
    }


def payments(bank, psu, customer, account, creditor_customer, poll_delay):
    product = "/v1/payments/norwegian-domestic-credit-transfers"
    creditor = [a for a in creditor_customer.get("accounts", []) if a.get("bban")][0]

    log("5. a payment: initiate, startAuthorisation, SCA, status")
    no_ip = {k: v for k, v in psu.items() if k != "PSU-IP-Address"}
    answer = bank.call("POST", product, payment_body(account, creditor, "Without the PSU"), psu=no_ip)
    check(answer.status == 400 and "FORMAT_ERROR" in answer.error_codes(),
          "a payment without PSU-IP-Address: want 400 FORMAT_ERROR, got %d %s" % (answer.status, answer.error_codes()))
    answer = bank.call("POST", product, payment_body(account, creditor, "Python flow"), psu=psu)
    created = expect(answer, 201, "initiate the payment")
    log("  transactionStatus %s, fee %s" % (created["transactionStatus"], created.get("transactionFees", {}).get("amount")))
    check(created["transactionStatus"] == "RCVD", "a new payment is RCVD")
    start = created["_links"]["startAuthorisation"]["href"]
    started = expect(bank.call("POST", start, psu=psu), 201, "startAuthorisation")
    log("  scaStatus %s" % started["scaStatus"])
    callback = drive_sca(bank, started["_links"]["scaRedirect"]["href"], customer["customerNumber"])
    check(callback.get("psu-id") == psu["PSU-ID"], "the payment's callback names another PSU: %s" % callback)
    status_href = created["_links"]["status"]["href"]
    for attempt in range(1, 21):
        status = expect(bank.call("GET", status_href, psu=psu), 200, "payment status")
        st = status["transactionStatus"]
        log("  poll %d: transactionStatus %s" % (attempt, st))
        if status.get("fundsAvailable") is False or st in REFUSED:
            raise Failure("the payment was refused: %s" % status)
        if st in ACCEPTED:
            break
        time.sleep(poll_delay)
    else:
        raise Failure("the payment was not accepted after 20 polls")
    check(st == "PDNG", "a signed payment is PDNG until the bank executes it, got %s" % st)
    check("startAuthorisation" not in status.get("_links", {}), "a signed payment still offers startAuthorisation")

    log("6. a second payment, cancelled")
    created = expect(bank.call("POST", product, payment_body(account, creditor, "Cancelled"), psu=psu), 201, "initiate")
    self_link = created["_links"]["self"]
    check("DELETE" in self_link.get("verbs", []), "the new payment's self link does not offer DELETE")
    expect(bank.call("DELETE", self_link["href"], psu=psu), 204, "cancel the payment")
    status = expect(bank.call("GET", created["_links"]["status"]["href"], psu=psu), 200, "status after cancel")
    check(status["transactionStatus"] == "CANC", "a cancelled payment is CANC, got %s" % status["transactionStatus"])
    log("  transactionStatus CANC")
    answer = bank.call("DELETE", self_link["href"], psu=psu)
    check(answer.status == 400 and "CANCELLATION_INVALID" in answer.error_codes(),
          "cancelling twice: want 400 CANCELLATION_INVALID, got %d %s" % (answer.status, answer.error_codes()))


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("base_url", help="the bank's base address, e.g. http://127.0.0.1:8080/api")
    p.add_argument("--insecure", action="store_true", help="accept a self-signed TLS certificate (xs2a fakebank -tls)")
    p.add_argument("--poll-delay", type=float, default=0.2, help="seconds between status polls (production clients: 2)")
    args = p.parse_args(argv)
    started = time.monotonic()
    try:
        bank = Bank(args.base_url, Certificate(), insecure=args.insecure)
        log("TPP certificate: keyId %s (self-signed, TEST ONLY)" % bank.cert.key_id)
        psu, customer, account, creditor = account_access(bank)
        payments(bank, psu, customer, account, creditor, args.poll_delay)
    except Failure as e:
        log("FAIL: %s" % e)
        return 1
    except (OSError, KeyError, IndexError, ValueError) as e:
        log("FAIL: %s: %s" % (type(e).__name__, e))
        return 1
    log("PASS (%.1f s)" % (time.monotonic() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
