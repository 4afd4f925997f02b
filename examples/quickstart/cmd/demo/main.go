package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/yaml"

	"github.com/admitkit/admit/certs"
	"github.com/admitkit/admit/examples/quickstart"
	"github.com/admitkit/admit/webhook"
)

var (
	//go:embed pod.yaml
	podYAML []byte
	//go:embed configmap.yaml
	configMapYAML []byte
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	dir, err := os.MkdirTemp("", "admit-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ca, err := certs.NewCA("admit-demo", time.Hour)
	if err != nil {
		return err
	}
	serving, err := ca.IssueServing(certs.ServingOptions{IPs: []net.IP{net.IPv4(127, 0, 0, 1)}, ValidFor: time.Hour})
	if err != nil {
		return err
	}
	if err := certs.WriteFiles(dir, ca, serving); err != nil {
		return err
	}

	registry, err := quickstart.NewRegistry(webhook.HTTPOptions{})
	if err != nil {
		return err
	}
	server, err := webhook.NewServer(webhook.ServerOptions{
		Addr: "127.0.0.1:0", CertFile: dir + "/" + certs.CertFileName, KeyFile: dir + "/" + certs.KeyFileName, Handler: registry,
	})
	if err != nil {
		return err
	}
	if err := server.Listen(); err != nil {
		return err
	}
	serveCtx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- server.Run(serveCtx) }()
	defer func() { stop(); <-served }()

	roots := x509.NewCertPool()
	roots.AddCert(ca.Certificate())
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}}}
	base := "https://" + server.Addr().String()

	podJSON, err := yaml.YAMLToJSON(podYAML)
	if err != nil {
		return err
	}
	resp, err := review(ctx, client, base+"/mutate-core-v1-pod", "Pod", "pods", "web", podJSON)
	if err != nil {
		return err
	}
	patched := podJSON
	if len(resp.Patch) > 0 {
		p, err := jsonpatch.DecodePatch(resp.Patch)
		if err != nil {
			return fmt.Errorf("decoding the webhook's patch: %w", err)
		}
		if patched, err = p.Apply(podJSON); err != nil {
			return fmt.Errorf("applying the webhook's patch: %w", err)
		}
	}
	patchedYAML, err := yaml.JSONToYAML(patched)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Pod web: allowed=%v\npatch: %s\nwarnings: %q\n---\n%s", resp.Allowed, resp.Patch, resp.Warnings, patchedYAML)

	cmJSON, err := yaml.YAMLToJSON(configMapYAML)
	if err != nil {
		return err
	}
	resp, err = review(ctx, client, base+"/validate-core-v1-configmap", "ConfigMap", "configmaps", "settings", cmJSON)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "---\nConfigMap settings: allowed=%v\n", resp.Allowed)
	if resp.Result != nil {
		fmt.Fprintf(out, "denied (%d %s): %s\n", resp.Result.Code, resp.Result.Reason, resp.Result.Message)
	}
	return nil
}

// review posts a CREATE AdmissionReview for object to url and returns the webhook's response.
func review(ctx context.Context, client *http.Client, url, kind, resource, name string, object []byte) (*admissionv1.AdmissionResponse, error) {
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID: types.UID("demo-" + resource), Kind: metav1.GroupVersionKind{Version: "v1", Kind: kind},
			Resource: metav1.GroupVersionResource{Version: "v1", Resource: resource}, Namespace: "default", Name: name,
			Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: object},
		},
	})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	httpResp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("calling %s: %w", url, err)
	}
	defer httpResp.Body.Close()
	if httpResp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(httpResp.Body)
		return nil, fmt.Errorf("calling %s: HTTP %d: %s", url, httpResp.StatusCode, b)
	}
	var answer admissionv1.AdmissionReview
	if err := json.NewDecoder(httpResp.Body).Decode(&answer); err != nil {
		return nil, fmt.Errorf("decoding the answer of %s: %w", url, err)
	}
	if answer.Response == nil || answer.Response.UID != types.UID("demo-"+resource) {
		return nil, fmt.Errorf("the answer of %s does not echo the request uid", url)
	}
	return answer.Response, nil
}
