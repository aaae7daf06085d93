package xs2a

import "reflect"

// The member names each model with an Extra field takes, from its json tags.
var (
	accountNames         = namesOf(reflect.TypeFor[Account](), "")
	cardAccountNames     = namesOf(reflect.TypeFor[CardAccount](), "")
	balancesNames        = namesOf(reflect.TypeFor[Balances](), "")
	balanceNames         = namesOf(reflect.TypeFor[Balance](), "")
	agreementNames       = namesOf(reflect.TypeFor[Agreement](), "")
	transactionNames     = namesOf(reflect.TypeFor[Transaction](), additionalProprietaryPrefix)
	cardTransactionNames = namesOf(reflect.TypeFor[CardTransaction](), "")
	scaLinksNames        = namesOf(reflect.TypeFor[SCALinks](), "")
	initiationNames      = namesOf(reflect.TypeFor[Initiation](), "")
	paymentStatusNames   = namesOf(reflect.TypeFor[PaymentStatus](), "")
	authStatusNames      = namesOf(reflect.TypeFor[AuthorisationStatus](), "")
	basketDetailsNames   = namesOf(reflect.TypeFor[BasketDetails](), "")
	basketStatusNames    = namesOf(reflect.TypeFor[BasketStatus](), "")
)

// UnmarshalJSON decodes an account; members it does not name go to Extra.
func (a *Account) UnmarshalJSON(data []byte) error {
	if isNull(data) {
		return nil
	}
	r := reader{data: data}
	if r.account(a) && r.end() {
		return nil
	}
	return a.unmarshalReflect(data)
}

// unmarshalReflect is UnmarshalJSON through encoding/json, for what the
// one-pass reader does not take (and as the reference it is tested
// against).
func (a *Account) unmarshalReflect(data []byte) error {
	type plain Account
	return unmarshalWithExtra(data, (*plain)(a), &a.Extra, accountNames)
}

// MarshalJSON encodes the account with its Extra members.
func (a Account) MarshalJSON() ([]byte, error) {
	type plain Account
	return marshalWithExtra(plain(a), a.Extra, accountNames)
}

// UnmarshalJSON decodes a card account; members it does not name go to
// Extra.
func (a *CardAccount) UnmarshalJSON(data []byte) error {
	type plain CardAccount
	return unmarshalWithExtra(data, (*plain)(a), &a.Extra, cardAccountNames)
}

// MarshalJSON encodes the card account with its Extra members.
func (a CardAccount) MarshalJSON() ([]byte, error) {
	type plain CardAccount
	return marshalWithExtra(plain(a), a.Extra, cardAccountNames)
}

// UnmarshalJSON decodes a balances answer; members it does not name go to
// Extra.
func (b *Balances) UnmarshalJSON(data []byte) error {
	type plain Balances
	return unmarshalWithExtra(data, (*plain)(b), &b.Extra, balancesNames)
}

// MarshalJSON encodes the balances answer with its Extra members.
func (b Balances) MarshalJSON() ([]byte, error) {
	type plain Balances
	return marshalWithExtra(plain(b), b.Extra, balancesNames)
}

// UnmarshalJSON decodes an agreement; members it does not name go to Extra.
func (a *Agreement) UnmarshalJSON(data []byte) error {
	type plain Agreement
	return unmarshalWithExtra(data, (*plain)(a), &a.Extra, agreementNames)
}

// MarshalJSON encodes the agreement with its Extra members.
func (a Agreement) MarshalJSON() ([]byte, error) {
	type plain Agreement
	return marshalWithExtra(plain(a), a.Extra, agreementNames)
}

// UnmarshalJSON decodes an answer that starts an SCA; members it does not
// name go to Extra.
func (l *SCALinks) UnmarshalJSON(data []byte) error {
	type plain SCALinks
	return unmarshalWithExtra(data, (*plain)(l), &l.Extra, scaLinksNames)
}

// MarshalJSON encodes the answer with its Extra members.
func (l SCALinks) MarshalJSON() ([]byte, error) {
	type plain SCALinks
	return marshalWithExtra(plain(l), l.Extra, scaLinksNames)
}

// UnmarshalJSON decodes an initiation answer; members it does not name go
// to Extra.
func (i *Initiation) UnmarshalJSON(data []byte) error {
	type plain Initiation
	return unmarshalWithExtra(data, (*plain)(i), &i.Extra, initiationNames)
}

// MarshalJSON encodes the initiation answer with its Extra members.
func (i Initiation) MarshalJSON() ([]byte, error) {
	type plain Initiation
	return marshalWithExtra(plain(i), i.Extra, initiationNames)
}

// UnmarshalJSON decodes a payment status; members it does not name go to
// Extra.
func (s *PaymentStatus) UnmarshalJSON(data []byte) error {
	type plain PaymentStatus
	return unmarshalWithExtra(data, (*plain)(s), &s.Extra, paymentStatusNames)
}

// MarshalJSON encodes the payment status with its Extra members.
func (s PaymentStatus) MarshalJSON() ([]byte, error) {
	type plain PaymentStatus
	return marshalWithExtra(plain(s), s.Extra, paymentStatusNames)
}

// UnmarshalJSON decodes an authorisation status; members it does not name go to Extra.
func (s *AuthorisationStatus) UnmarshalJSON(data []byte) error {
	type plain AuthorisationStatus
	return unmarshalWithExtra(data, (*plain)(s), &s.Extra, authStatusNames)
}

// MarshalJSON encodes an authorisation status with its Extra members.
func (s AuthorisationStatus) MarshalJSON() ([]byte, error) {
	type plain AuthorisationStatus
	return marshalWithExtra(plain(s), s.Extra, authStatusNames)
}

// UnmarshalJSON decodes a signing basket; members it does not name go to Extra.
func (b *BasketDetails) UnmarshalJSON(data []byte) error {
	type plain BasketDetails
	return unmarshalWithExtra(data, (*plain)(b), &b.Extra, basketDetailsNames)
}

// MarshalJSON encodes a signing basket with its Extra members.
func (b BasketDetails) MarshalJSON() ([]byte, error) {
	type plain BasketDetails
	return marshalWithExtra(plain(b), b.Extra, basketDetailsNames)
}

// UnmarshalJSON decodes a signing basket's status; members it does not name go to Extra.
func (s *BasketStatus) UnmarshalJSON(data []byte) error {
	type plain BasketStatus
	return unmarshalWithExtra(data, (*plain)(s), &s.Extra, basketStatusNames)
}

// MarshalJSON encodes a signing basket's status with its Extra members.
func (s BasketStatus) MarshalJSON() ([]byte, error) {
	type plain BasketStatus
	return marshalWithExtra(plain(s), s.Extra, basketStatusNames)
}
