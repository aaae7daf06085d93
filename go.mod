module github.com/tppkit/xs2a

go 1.24.0

require (
	github.com/go-fed/httpsig v1.1.0
	github.com/google/uuid v1.6.0
	github.com/jarcoal/httpmock v1.4.2
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
	golang.org/x/oauth2 v0.35.0
	software.sslmate.com/src/go-pkcs12 v0.7.4
)

require (
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/crypto v0.11.0 // indirect
	golang.org/x/sys v0.10.0 // indirect
)
