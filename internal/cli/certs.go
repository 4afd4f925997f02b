package cli

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/certs/inject"
)

func newCertsCommand(streams Streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "certs",
		Short: "Create serving certificates and inject CA bundles into webhook configurations",
	}
	cmd.AddCommand(newCertsCreateCommand(streams), newCertsInjectCommand(streams))
	return cmd
}

type certsCreateOptions struct {
	hosts, ips    []string
	out           string
	validFor      time.Duration
	caCert, caKey string
	caKeyOut      string
	force         bool
	output        string
	now           func() time.Time
}

func newCertsCreateCommand(streams Streams) *cobra.Command {
	o := &certsCreateOptions{now: time.Now}
	cmd := &cobra.Command{
		Use:   "create --host NAME... [--ip IP...] --out DIR",
		Short: "Create a CA and a serving certificate (ECDSA P-256) for a webhook server",
		Long: `Create a CA and a serving certificate signed by it, and write ca.crt, tls.crt and tls.key into DIR
(the file names of a kubernetes.io/tls Secret). Give every name clients use: for a webhook behind a
Service that is <service>.<namespace>.svc. The CA's key is not written unless --ca-key-out says where;
to renew a serving certificate under the same CA (so caBundle stays valid), pass --ca-cert and --ca-key.
An existing CA in DIR is not replaced without --force.`,
		Example: `  # a webhook Service "admit" in namespace "admit-system"
  admit certs create --host admit.admit-system.svc --out ./tls

  # a server on this machine, reached by URL
  admit certs create --host localhost --ip 127.0.0.1 --out ./tls --valid-for 720h

  # renew the serving certificate with the existing CA
  admit certs create --host admit.admit-system.svc --ca-cert ca.crt --ca-key ca.key --out ./tls`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(streams) },
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.hosts, "host", nil, "DNS name the certificate is valid for (repeatable)")
	f.StringSliceVar(&o.ips, "ip", nil, "IP address the certificate is valid for (repeatable)")
	onceStringVar(f, &o.out, "out", "", "directory to write ca.crt, tls.crt and tls.key into")
	f.DurationVar(&o.validFor, "valid-for", 365*24*time.Hour, "how long the serving certificate is valid")
	onceStringVar(f, &o.caCert, "ca-cert", "", "sign with this existing CA certificate (PEM) instead of creating a CA")
	onceStringVar(f, &o.caKey, "ca-key", "", "the existing CA's private key (PEM), with --ca-cert")
	onceStringVar(f, &o.caKeyOut, "ca-key-out", "", "also write a newly created CA's private key to this file (mode 0600)")
	f.BoolVar(&o.force, "force", false, "replace an existing CA in --out, or an existing --ca-key-out file")
	addOutputFlag(cmd, &o.output)
	_ = cmd.MarkFlagRequired("out")
	_ = cmd.MarkFlagDirname("out")
	return cmd
}

// checkNoCA refuses to replace a CA: every caBundle made from it would stop verifying the
// server, and every webhook of a fail-closed configuration would fail.
func (o *certsCreateOptions) checkNoCA() error {
	if o.force {
		return nil
	}
	existing := filepath.Join(o.out, certs.CAFileName)
	if _, err := os.Stat(existing); err == nil {
		return fmt.Errorf("%s exists: a new CA would break every caBundle made from it. Renew the serving certificate with the CA: --ca-cert %s --ca-key FILE, FILE the CA's key that --ca-key-out kept when the CA was made (certs create keeps it nowhere else); without it, replace the CA with --force and then every caBundle made from the old one", existing, existing)
	}
	if o.caKeyOut != "" {
		if _, err := os.Stat(o.caKeyOut); err == nil {
			return fmt.Errorf("--ca-key-out %s exists: replace it with --force", o.caKeyOut)
		}
	}
	return nil
}

// certsCreated is what `certs create -o json|yaml` prints.
type certsCreated struct {
	Dir       string    `json:"dir"`
	CAFile    string    `json:"caFile"`
	CertFile  string    `json:"certFile"`
	KeyFile   string    `json:"keyFile"`
	CAKeyFile string    `json:"caKeyFile,omitempty"`
	DNSNames  []string  `json:"dnsNames"`
	IPs       []string  `json:"ips"`
	NotAfter  time.Time `json:"notAfter"`
}

func (o *certsCreateOptions) run(streams Streams) error {
	if err := checkOutput(o.output); err != nil {
		return err
	}
	if len(o.hosts) == 0 && len(o.ips) == 0 {
		return badInput(errors.New("give at least one --host or --ip: clients verify the server's name against them"))
	}
	var ips []net.IP
	for _, s := range o.ips {
		ip := net.ParseIP(s)
		if ip == nil {
			return badInput(fmt.Errorf("--ip %q is not an IP address", s))
		}
		ips = append(ips, ip)
	}
	if o.validFor <= 0 {
		return badInput(fmt.Errorf("--valid-for must be positive, got %s", o.validFor))
	}
	if (o.caCert == "") != (o.caKey == "") {
		return badInput(errors.New("--ca-cert and --ca-key go together"))
	}
	var ca *certs.CA
	if o.caCert != "" {
		certPEM, err := os.ReadFile(o.caCert)
		if err != nil {
			return badInput(err)
		}
		keyPEM, err := os.ReadFile(o.caKey)
		if err != nil {
			return badInput(err)
		}
		if ca, err = certs.ParseCA(certPEM, keyPEM); err != nil {
			return badInput(fmt.Errorf("reading the CA from %s and %s: %w", o.caCert, o.caKey, err))
		}
	} else {
		if err := o.checkNoCA(); err != nil {
			return badInput(err)
		}
		var err error
		// The CA outlives the serving certificate so it can be renewed without a new caBundle.
		if ca, err = certs.NewCA("admit webhook CA", 10*365*24*time.Hour); err != nil {
			return err
		}
	}
	kp, err := ca.IssueServing(certs.ServingOptions{DNSNames: o.hosts, IPs: ips, ValidFor: o.validFor})
	if err != nil {
		return badInput(err)
	}
	if err := certs.WriteFiles(o.out, ca, kp); err != nil {
		return err
	}
	created := certsCreated{
		Dir: o.out, CAFile: filepath.Join(o.out, certs.CAFileName), CertFile: filepath.Join(o.out, certs.CertFileName),
		KeyFile: filepath.Join(o.out, certs.KeyFileName), DNSNames: o.hosts, IPs: o.ips, NotAfter: kp.Certificate().NotAfter.UTC(),
	}
	if o.caKeyOut != "" && o.caCert == "" {
		if err := os.WriteFile(o.caKeyOut, ca.KeyPEM(), 0o600); err != nil {
			return err
		}
		created.CAKeyFile = o.caKeyOut
	}
	if created.DNSNames == nil {
		created.DNSNames = []string{}
	}
	if created.IPs == nil {
		created.IPs = []string{}
	}
	if o.output != outputText {
		return writeStructured(streams.Out, o.output, created)
	}
	fmt.Fprintf(streams.Out, "wrote %s, %s and %s\n", created.CAFile, created.CertFile, created.KeyFile)
	fmt.Fprintf(streams.Out, "valid for %s until %s\n", strings.Join(append(append([]string{}, o.hosts...), o.ips...), ", "), created.NotAfter.Format(time.RFC3339))
	if created.CAKeyFile != "" {
		fmt.Fprintf(streams.Out, "CA key written to %s: keep it out of the cluster\n", created.CAKeyFile)
	}
	return nil
}

type certsInjectOptions struct {
	caFile string
	write  bool
}

func newCertsInjectCommand(streams Streams) *cobra.Command {
	o := &certsInjectOptions{}
	cmd := &cobra.Command{
		Use:   "inject --ca-file FILE CONFIG.yaml...",
		Short: "Write a CA bundle into the clientConfig of every webhook in configuration files",
		Long: `Set clientConfig.caBundle of every webhook of the Mutating- and ValidatingWebhookConfigurations in
the given files (multi-document YAML; "-" reads stdin), and of the conversion webhook of
CustomResourceDefinitions that have one. Only the caBundle values change: comments, key order,
quoting and the other documents are kept as written. The CA file must contain only CERTIFICATE
blocks: a private key is refused, so it can never land in a cluster object. Prints the result, or
rewrites the files with --write.`,
		Example: `  admit certs inject --ca-file tls/ca.crt deploy/webhooks.yaml | kubectl apply -f -
  admit certs inject --ca-file tls/ca.crt --write deploy/webhooks.yaml`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return o.run(streams, args) },
	}
	onceStringVar(cmd.Flags(), &o.caFile, "ca-file", "", "PEM file with the CA certificate(s): one file, which may hold several (the old and the new CA while rotating)")
	cmd.Flags().BoolVarP(&o.write, "write", "w", false, "rewrite the files in place instead of printing")
	_ = cmd.MarkFlagRequired("ca-file")
	return cmd
}

func (o *certsInjectOptions) run(streams Streams, files []string) error {
	bundle, err := os.ReadFile(o.caFile)
	if err != nil {
		return badInput(err)
	}
	if _, err := certs.ParseCertificatesPEM(bundle); err != nil {
		return badInput(fmt.Errorf("%s: %w", o.caFile, err))
	}
	if o.write {
		for _, f := range files {
			if f == "-" {
				return badInput(errors.New("--write cannot rewrite stdin"))
			}
		}
	}
	for _, name := range files {
		data, err := readInput(name, streams.In)
		if err != nil {
			return badInput(err)
		}
		out, n, err := inject.CABundle(data, bundle)
		if err != nil {
			return badInput(fmt.Errorf("%s: %w", name, err))
		}
		if o.write {
			if err := os.WriteFile(name, out, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(streams.Err, "%s: caBundle set in %d client configurations\n", name, n)
			continue
		}
		if _, err := streams.Out.Write(out); err != nil {
			return err
		}
	}
	return nil
}

func readInput(name string, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(name)
}
