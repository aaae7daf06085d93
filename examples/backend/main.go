// Command backend is a small TPP backend on the SDK: JSON endpoints for a
// frontend (GET /login?user=, POST /connect, GET /accounts, POST /payments,
// GET /payments/{id}), the SCA callback (/xs2a/callback), a store and a
// nightly sync. docs/backend.md walks through it.
//
// With no arguments it runs against the fake bank of package xs2atest,
// in-process, whose SCA pages open in a browser:
//
//	go run ./examples/backend
//
// Against a bank: -base-url and -p12 (password in XS2A_P12_PASSWORD), or
// XS2A_BASE_URL and XS2A_P12; -redirect-uri is the public callback URL.
package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"time"

	"github.com/tppkit/xs2a"
	"github.com/tppkit/xs2a/xs2atest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		log.Fatalln("backend:", err)
	}
}

// run serves the backend until ctx ends.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("backend", flag.ContinueOnError)
	fs.SetOutput(out)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	baseURL := fs.String("base-url", os.Getenv("XS2A_BASE_URL"), "the bank's base address (empty: the fake bank)")
	p12 := fs.String("p12", os.Getenv("XS2A_P12"), "PKCS#12 file of the TPP's certificate and key")
	redirectURI := fs.String("redirect-uri", "", "TPP-Redirect-URI (default: /xs2a/callback on -addr)")
	every := fs.Duration("sync-every", 24*time.Hour, "how often the sync runs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	if *redirectURI == "" {
		*redirectURI = "http://" + ln.Addr().String() + "/xs2a/callback"
	}
	var client *xs2a.Client // LongerNames: account names whole, not cut at 35 characters
	opts := []xs2a.Option{xs2a.WithRedirectURI(*redirectURI), xs2a.WithAcceptFixes(xs2a.LongerNames)}
	if *baseURL == "" {
		var bank *xs2atest.Server
		if bank, err = xs2atest.Start(); err != nil {
			return err
		}
		defer bank.Close()
		client, err = bank.Client(nil, opts...)
	} else {
		var signer *xs2a.Signer
		if signer, err = xs2a.LoadPKCS12(*p12, os.Getenv("XS2A_P12_PASSWORD"), nil); err != nil {
			return err
		}
		client, err = xs2a.NewClient(*baseURL, signer, opts...)
	}
	if err != nil {
		return err
	}
	defer client.Close()

	logger := slog.New(slog.NewTextHandler(out, nil))
	store := newMemStore()
	b := &backend{client: client, sessions: xs2a.NewSessionManager(nil, nil), store: store, log: logger}
	sync := &syncer{client: client, store: store, log: logger, pageSize: 499}
	server := &http.Server{Handler: b.Handler(), ReadHeaderTimeout: 10 * time.Second}
	ticker := time.NewTicker(*every)
	defer ticker.Stop()
	go func() { // the nightly sync, until ctx ends the server
		for {
			select {
			case <-ctx.Done():
				server.Close()
				return
			case <-ticker.C:
				if err := sync.Run(ctx); err != nil {
					logger.Error("sync failed", "error", err)
				}
			}
		}
	}()
	logger.Info("backend listening", "addr", ln.Addr().String(), "redirect_uri", *redirectURI)
	if err := server.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
