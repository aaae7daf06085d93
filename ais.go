package xs2a

// AccountsService reads accounts, balances and transactions (service.md,
// Endpoints: /v1/accounts, /v1/card-accounts).
type AccountsService service

// ConsentsService asks for bank-offered consent (POST /v1/consents).
type ConsentsService service

// UsersService registers PSUs and reads their corporate agreements
// (GET /v1/users, /v1/user, /v1/agreements).
type UsersService service
