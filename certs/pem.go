package certs

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"
)

const (
	pemTypeCertificate = "CERTIFICATE"
	pemTypePrivateKey  = "PRIVATE KEY"
	pemTypeECKey       = "EC PRIVATE KEY"
)

// ParseCertificatesPEM parses every certificate in a PEM bundle, such as a caBundle or a
// ca.crt file. It refuses a bundle with any block that is not a CERTIFICATE, naming the block
// and its type: a private key must never end up published in a caBundle. It is strict about
// structure for the same reason: encoding/pem skips whatever it cannot parse, so a key block
// without its END line, or any text between blocks, would otherwise pass unnoticed.
func ParseCertificatesPEM(data []byte) ([]*x509.Certificate, error) {
	const (
		begin    = "-----BEGIN "
		certEnd  = "-----END " + pemTypeCertificate + "-----"
		keyHint  = " (a private key must never be part of a CA bundle)"
		markTail = "-----"
	)
	var certs []*x509.Certificate
	rest := data
	for index := 0; ; index++ {
		start := bytes.Index(rest, []byte(begin))
		if start < 0 {
			if len(bytes.TrimSpace(rest)) > 0 {
				if len(certs) == 0 {
					return nil, errors.New("no PEM data found")
				}
				return nil, fmt.Errorf("unexpected non-PEM data after PEM block %d", len(certs)-1)
			}
			break
		}
		if len(bytes.TrimSpace(rest[:start])) > 0 {
			hint := ""
			if bytes.Contains(rest[:start], []byte("PRIVATE KEY")) {
				hint = keyHint
			}
			return nil, fmt.Errorf("unexpected non-PEM data before PEM block %d%s", index, hint)
		}
		rest = rest[start:]
		header, _, _ := bytes.Cut(rest, []byte("\n"))
		blockType := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(string(header)), begin), markTail)
		if blockType != pemTypeCertificate {
			hint := ""
			if strings.Contains(blockType, "PRIVATE KEY") {
				hint = keyHint
			}
			return nil, fmt.Errorf("PEM block %d is %q, want %q%s", index, blockType, pemTypeCertificate, hint)
		}
		end := bytes.Index(rest, []byte(certEnd))
		if end < 0 {
			return nil, fmt.Errorf("PEM block %d has no %q line", index, certEnd)
		}
		segment := rest[:end+len(certEnd)]
		if bytes.Count(segment, []byte(begin)) != 1 {
			return nil, fmt.Errorf("PEM block %d is not terminated before the next block begins", index)
		}
		block, remaining := pem.Decode(segment)
		if block == nil || len(bytes.TrimSpace(remaining)) > 0 {
			return nil, fmt.Errorf("PEM block %d is not valid PEM", index)
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("PEM block %d: parsing certificate: %w", index, err)
		}
		certs = append(certs, cert)
		rest = rest[len(segment):]
	}
	if len(certs) == 0 {
		return nil, errors.New("no certificates found")
	}
	return certs, nil
}

func encodeCertPEM(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: pemTypeCertificate, Bytes: der})
}

func encodeKeyPEM(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encoding private key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: pemTypePrivateKey, Bytes: der}), nil
}

// decodeKeyPEM reads an ECDSA key in PKCS #8 or SEC 1 form, the two forms tools write.
func decodeKeyPEM(data []byte) (*ecdsa.PrivateKey, error) {
	block, rest := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM data found")
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		return nil, errors.New("unexpected data after the private key block")
	}
	switch block.Type {
	case pemTypePrivateKey:
		key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parsing PKCS #8 private key: %w", err)
		}
		ecKey, ok := key.(*ecdsa.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("private key is %T, want an ECDSA key", key)
		}
		return ecKey, nil
	case pemTypeECKey:
		key, err := x509.ParseECPrivateKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parsing EC private key: %w", err)
		}
		return key, nil
	default:
		return nil, fmt.Errorf("PEM block is %q, want %q or %q", block.Type, pemTypePrivateKey, pemTypeECKey)
	}
}
