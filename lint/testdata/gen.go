//go:build ignore

// gen renders the lint fixtures that embed certificates. Certificates carry fixed validity
// windows around the tests' clock (2026-06-01), so fixtures do not expire; keys are throwaway
// and never written. Run from the repository root after changing a template:
//
//	go run lint/testdata/gen.go
//
// Every *.yaml.tmpl under lint/testdata is rendered to the *.yaml beside it, with
//
//	{{bundle "ca" ...}}   the base64 of the named certificates' PEM, for caBundle
//	{{bundleWithText "ca" ...}}  the same, each certificate after subject= and issuer= lines as
//	                      openssl prints them
//	{{pem "name" 6}}      the PEM of one certificate indented by 6 spaces, for a literal block
//	{{key}}               the PEM of a throwaway private key (to show what must never be in caBundle)
package main

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"log"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"text/template"
	"time"
)

type spec struct {
	name       string
	commonName string
	ca         bool
	issuer     string // "" for self-signed
	dnsNames   []string
	ips        []string
	notBefore  string
	notAfter   string
	sha1       bool
}

func specs() []spec {
	long := func(s spec) spec { s.notBefore, s.notAfter = "2025-01-01", "2045-01-01"; return s }
	return []spec{
		long(spec{name: "ca", commonName: "admit lint fixtures CA", ca: true}),
		{name: "ca-expired", commonName: "expired CA", ca: true, notBefore: "2024-01-01", notAfter: "2026-01-01"},
		{name: "ca-expiring", commonName: "expiring CA", ca: true, notBefore: "2025-06-01", notAfter: "2026-06-15"},
		long(spec{name: "ca-sha1-intermediate", commonName: "SHA-1 intermediate CA", ca: true, issuer: "ca", sha1: true}),
		long(spec{name: "serving-webhook", commonName: "webhook.example-system.svc", issuer: "ca", dnsNames: []string{"webhook.example-system.svc"}}),
		long(spec{name: "serving-wrong-name", commonName: "webhook.example-system.svc", issuer: "ca", dnsNames: []string{"webhook.other-system.svc"}}),
		long(spec{name: "serving-sha1", commonName: "webhook.example-system.svc", issuer: "ca", dnsNames: []string{"webhook.example-system.svc"}, sha1: true}),
		{name: "serving-webhook-expiring", commonName: "webhook.example-system.svc", issuer: "ca", dnsNames: []string{"webhook.example-system.svc"}, notBefore: "2025-06-01", notAfter: "2026-06-20"},
		long(spec{name: "leaf-url", commonName: "webhook.example.com", dnsNames: []string{"webhook.example.com"}}),
		long(spec{name: "leaf-url-wrong", commonName: "webhook.example.com", dnsNames: []string{"webhook.example.org"}, ips: []string{"10.0.0.7"}}),
		long(spec{name: "serving-cert-manager", commonName: "cert-manager-webhook", issuer: "ca", dnsNames: []string{"cert-manager-webhook", "cert-manager-webhook.cert-manager", "cert-manager-webhook.cert-manager.svc"}}),
		long(spec{name: "serving-policy", commonName: "policy-engine", issuer: "ca", dnsNames: []string{"policy-engine.policy-system.svc"}}),
		long(spec{name: "ca-other", commonName: "other CA", ca: true}),
		{name: "metrics-expired", commonName: "metrics", issuer: "ca-other", dnsNames: []string{"webhook-metrics.example-system.svc"}, notBefore: "2024-01-01", notAfter: "2026-01-01"},
		long(spec{name: "metrics-wrong-name", commonName: "metrics", issuer: "ca-other", dnsNames: []string{"webhook-metrics.example-system.svc"}}),
		long(spec{name: "metrics-sha1", commonName: "metrics", issuer: "ca-other", dnsNames: []string{"webhook-metrics.example-system.svc"}, sha1: true}),
		{name: "serving-by-expired-ca", commonName: "webhook.example-system.svc", issuer: "ca-expired", dnsNames: []string{"webhook.example-system.svc"}, notBefore: "2024-06-01", notAfter: "2027-06-01"},
		long(spec{name: "serving-via-sha1-intermediate", commonName: "webhook.example-system.svc", issuer: "ca-sha1-intermediate", dnsNames: []string{"webhook.example-system.svc"}}),
		{name: "serving-injector", commonName: "injector", issuer: "ca", dnsNames: []string{"injector.injector-system.svc.cluster.local"}, notBefore: "2025-06-01", notAfter: "2026-06-10"},
	}
}

type issued struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

func main() {
	all := map[string]issued{}
	for _, s := range specs() {
		all[s.name] = issue(s, all)
	}
	keyPEM := throwawayKey()
	funcs := template.FuncMap{
		"bundle": func(names ...string) (string, error) {
			var b bytes.Buffer
			for _, n := range names {
				c, ok := all[n]
				if !ok {
					return "", fmt.Errorf("no certificate %q", n)
				}
				b.Write(c.pem)
			}
			return base64.StdEncoding.EncodeToString(b.Bytes()), nil
		},
		"bundleWithText": func(names ...string) (string, error) {
			var b bytes.Buffer
			for _, n := range names {
				c, ok := all[n]
				if !ok {
					return "", fmt.Errorf("no certificate %q", n)
				}
				fmt.Fprintf(&b, "subject=CN = %s\nissuer=CN = %s\n", c.cert.Subject.CommonName, c.cert.Issuer.CommonName)
				b.Write(c.pem)
			}
			return base64.StdEncoding.EncodeToString(b.Bytes()), nil
		},
		"bundleWithKey": func(name string) (string, error) {
			c, ok := all[name]
			if !ok {
				return "", fmt.Errorf("no certificate %q", name)
			}
			return base64.StdEncoding.EncodeToString(append(append([]byte{}, c.pem...), keyPEM...)), nil
		},
		"pem": func(name string, indent int) (string, error) {
			c, ok := all[name]
			if !ok {
				return "", fmt.Errorf("no certificate %q", name)
			}
			pad := strings.Repeat(" ", indent)
			lines := strings.Split(strings.TrimSpace(string(c.pem)), "\n")
			return strings.Join(lines, "\n"+pad), nil
		},
	}
	templates, err := filepath.Glob("lint/testdata/*/*.yaml.tmpl")
	if err != nil {
		log.Fatal(err)
	}
	more, err := filepath.Glob("lint/testdata/*/*/*.yaml.tmpl")
	if err != nil {
		log.Fatal(err)
	}
	for _, path := range append(templates, more...) {
		t, err := template.New(filepath.Base(path)).Funcs(funcs).ParseFiles(path)
		if err != nil {
			log.Fatal(err)
		}
		var out bytes.Buffer
		out.WriteString("# Generated by lint/testdata/gen.go from " + filepath.Base(path) + ": edit the template.\n")
		if err := t.Execute(&out, nil); err != nil {
			log.Fatalf("%s: %v", path, err)
		}
		if err := os.WriteFile(strings.TrimSuffix(path, ".tmpl"), out.Bytes(), 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Println("wrote", strings.TrimSuffix(path, ".tmpl"))
	}
}

func issue(s spec, all map[string]issued) issued {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		log.Fatal(err)
	}
	template := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: s.commonName},
		NotBefore:    day(s.notBefore),
		NotAfter:     day(s.notAfter),
		DNSNames:     s.dnsNames,
	}
	for _, ip := range s.ips {
		template.IPAddresses = append(template.IPAddresses, net.ParseIP(ip))
	}
	if s.ca {
		template.IsCA, template.BasicConstraintsValid = true, true
		template.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign
	} else {
		template.BasicConstraintsValid = true
		template.KeyUsage = x509.KeyUsageDigitalSignature
		template.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	}
	if s.sha1 {
		template.SignatureAlgorithm = x509.ECDSAWithSHA1
	}
	parent, signer := template, key
	if s.issuer != "" {
		parent, signer = all[s.issuer].cert, all[s.issuer].key
	}
	der, err := x509.CreateCertificate(rand.Reader, template, parent, &key.PublicKey, signer)
	if err != nil {
		log.Fatalf("%s: %v", s.name, err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		log.Fatal(err)
	}
	return issued{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

func throwawayKey() []byte {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		log.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

func day(s string) time.Time {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		log.Fatal(err)
	}
	return t
}
