package dispatch

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// ServiceResolver turns a service reference into the address to dial. The default dials
// <name>.<namespace>.svc:<port>, which only resolves inside a cluster; `admit review` and tests
// map services to loopback addresses. TLS is always verified for <name>.<namespace>.svc.
type ServiceResolver func(namespace, name string, port int32) (hostport string, err error)

// clientTimeout caps every webhook call, as the apiserver's webhook client does.
const clientTimeout = 30 * time.Second

// maxRetries is client-go's default number of retries on 429/5xx with Retry-After.
const maxRetries = 10

// maxResponseBytes bounds how much of a webhook's answer is read: a webhook cannot make the
// dispatcher buffer an unbounded body.
const maxResponseBytes = 16 << 20

// unstructuredErrorBytes caps the body quoted in an error, as client-go does.
const unstructuredErrorBytes = 4 << 10

// callResult is what one call produced, for the Result and the metrics.
type callResult struct {
	response *admissionv1.AdmissionResponse
	httpCode int
}

// clientCache keeps one HTTP client per client configuration, as the apiserver does, so
// connections are reused across admissions.
type clientCache struct {
	resolver ServiceResolver
	mu       sync.Mutex
	clients  map[string]*http.Client
}

func newClientCache(resolver ServiceResolver) *clientCache {
	return &clientCache{resolver: resolver, clients: map[string]*http.Client{}}
}

// client returns the HTTP client and the URL for cc.
func (c *clientCache) client(cc admissionregistrationv1.WebhookClientConfig) (*http.Client, *url.URL, error) {
	target, serverName, err := webhookURL(cc)
	if err != nil {
		return nil, nil, err
	}
	key, err := json.Marshal(cc)
	if err != nil {
		return nil, nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if client, ok := c.clients[string(key)]; ok {
		return client, target, nil
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: serverName}
	if len(cc.CABundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(cc.CABundle) {
			return nil, nil, errors.New("unable to load root certificates: unable to parse bytes as PEM block")
		}
		tlsConfig.RootCAs = pool
	}
	transport := &http.Transport{
		TLSClientConfig:     tlsConfig,
		MaxIdleConnsPerHost: 100,
		IdleConnTimeout:     90 * time.Second,
		TLSHandshakeTimeout: 10 * time.Second,
	}
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	if cc.Service != nil {
		svc := *cc.Service
		port := int32(443)
		if svc.Port != nil {
			port = *svc.Port
		}
		resolve := c.resolver
		transport.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
			addr := net.JoinHostPort(svc.Name+"."+svc.Namespace+".svc", strconv.Itoa(int(port)))
			if resolve != nil {
				resolved, err := resolve(svc.Namespace, svc.Name, port)
				if err != nil {
					return nil, err
				}
				addr = resolved
			}
			return dialer.DialContext(ctx, network, addr)
		}
	} else {
		transport.DialContext = dialer.DialContext
	}
	// Like the apiserver, only loopback URL webhooks may use HTTP/2; everything else uses
	// HTTP/1.1 so that concurrent calls spread over a service's endpoints.
	if cc.URL != nil && isLoopback(target.Hostname()) {
		transport.ForceAttemptHTTP2 = true
	} else {
		tlsConfig.NextProtos = []string{"http/1.1"}
	}
	client := &http.Client{
		Transport: transport,
		Timeout:   clientTimeout,
		// Deliberate difference from kube-apiserver, which follows redirects: a webhook must not
		// be able to send the caller's request elsewhere (CVE-2020-8561). The 3xx answer itself
		// is returned and becomes a calling error.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	c.clients[string(key)] = client
	return client, target, nil
}

// webhookURL is the URL a client config points at and the TLS server name to verify.
func webhookURL(cc admissionregistrationv1.WebhookClientConfig) (*url.URL, string, error) {
	switch {
	case cc.URL != nil:
		u, err := url.Parse(*cc.URL)
		if err != nil {
			return nil, "", fmt.Errorf("Unparsable URL: %w", err)
		}
		// client-go joins the path onto "/", which cleans it: "/validate/" is called as "/validate".
		u.Path, u.RawPath = path.Join("/", u.Path), ""
		return u, u.Hostname(), nil
	case cc.Service != nil:
		port := int32(443)
		if cc.Service.Port != nil {
			port = *cc.Service.Port
		}
		host := cc.Service.Name + "." + cc.Service.Namespace + ".svc"
		servicePath := "/"
		if cc.Service.Path != nil {
			servicePath = path.Join("/", *cc.Service.Path)
		}
		return &url.URL{Scheme: "https", Host: net.JoinHostPort(host, strconv.Itoa(int(port))), Path: servicePath}, host, nil
	}
	return nil, "", errors.New("webhook configuration must have either service or URL")
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// call sends one AdmissionReview to h for inv and returns the verified response. Errors are
// *CallingError (failurePolicy applies) or API statuses that fail the request regardless.
func (a *admission) call(ctx context.Context, inv *invocation, object, old json.RawMessage) (*callResult, error) {
	h := inv.hook
	if a.req.DryRun {
		if h.sideEffects == nil {
			return nil, &CallingError{WebhookName: h.name, Reason: errors.New("Webhook SideEffects is nil"), Status: apierrors.NewBadRequest("Webhook SideEffects is nil")}
		}
		if *h.sideEffects != admissionregistrationv1.SideEffectClassNone && *h.sideEffects != admissionregistrationv1.SideEffectClassNoneOnDryRun {
			return nil, dryRunUnsupported(h.name)
		}
	}
	version := reviewVersion(h.admissionReviewVersions)
	if version == "" {
		return nil, &CallingError{WebhookName: h.name,
			Reason: errors.New("could not create admission objects: webhook does not accept known AdmissionReview versions (v1, v1beta1)"),
			Status: apierrors.NewBadRequest("error creating admission objects")}
	}
	client, target, err := h.client(a.d.clients)
	if err != nil {
		return nil, &CallingError{WebhookName: h.name, Reason: fmt.Errorf("could not get REST client: %w", err), Status: apierrors.NewInternalError(err)}
	}
	uid := types.UID(a.d.newUID())
	body, err := encodeReview(version, a.reviewRequest(inv, uid, nil, nil), object, old)
	if err != nil {
		return nil, &CallingError{WebhookName: h.name, Reason: fmt.Errorf("could not create admission objects: %w", err), Status: apierrors.NewBadRequest("error creating admission objects")}
	}

	if h.timeoutSeconds != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(*h.timeoutSeconds)*time.Second)
		defer cancel()
	}
	u := *target
	if deadline, ok := ctx.Deadline(); ok {
		if timeout := time.Until(deadline); timeout > 0 {
			// The apiserver tells the webhook how long it will wait, rounded up to a second.
			if truncated := timeout.Truncate(time.Second); truncated != timeout {
				timeout = truncated + time.Second
			}
			u.RawQuery = url.Values{"timeout": {timeout.String()}}.Encode()
		}
	}

	resp, code, err := post(ctx, client, u.String(), body, version)
	if err != nil {
		var status *apierrors.StatusError
		if !errors.As(err, &status) {
			status = apierrors.NewServiceUnavailable("error calling webhook")
		}
		return &callResult{httpCode: code}, &CallingError{WebhookName: h.name, Reason: fmt.Errorf("failed to call webhook: %w", err), Status: status}
	}
	if err := verifyResponse(uid, version, h.mutating, resp); err != nil {
		return &callResult{httpCode: code}, &CallingError{WebhookName: h.name, Reason: fmt.Errorf("received invalid webhook response: %w", err),
			Status: apierrors.NewServiceUnavailable("error validating webhook response")}
	}
	return &callResult{response: resp.Response, httpCode: code}, nil
}

func reviewVersion(versions []string) string {
	for _, v := range versions {
		if v == "v1" || v == "v1beta1" {
			return v
		}
	}
	return ""
}

// reviewRequest builds the request a webhook receives for inv: its own kind and resource, the
// client's as requestKind/requestResource.
func (a *admission) reviewRequest(inv *invocation, uid types.UID, object, old json.RawMessage) *admissionv1.AdmissionRequest {
	req := a.req
	dryRun := req.DryRun
	kind := metav1.GroupVersionKind(req.Kind)
	resource := metav1.GroupVersionResource(req.Resource)
	out := &admissionv1.AdmissionRequest{
		UID:                uid,
		Kind:               metav1.GroupVersionKind(inv.kind),
		Resource:           metav1.GroupVersionResource(inv.resource),
		SubResource:        inv.subresource,
		RequestKind:        &kind,
		RequestResource:    &resource,
		RequestSubResource: req.SubResource,
		Name:               a.name,
		Namespace:          req.Namespace,
		Operation:          req.Operation,
		UserInfo:           req.UserInfo,
		DryRun:             &dryRun,
	}
	if len(object) > 0 {
		out.Object = runtime.RawExtension{Raw: object}
	}
	if len(old) > 0 {
		out.OldObject = runtime.RawExtension{Raw: old}
	}
	options := req.Options
	if len(options) == 0 {
		options = optionsFor(req.Operation)
	}
	if len(options) > 0 {
		out.Options = runtime.RawExtension{Raw: options}
	}
	return out
}

// reviewHead is an AdmissionRequest without its objects, which encodeReview writes itself.
type reviewHead struct {
	UID                types.UID                    `json:"uid"`
	Kind               metav1.GroupVersionKind      `json:"kind"`
	Resource           metav1.GroupVersionResource  `json:"resource"`
	SubResource        string                       `json:"subResource,omitempty"`
	RequestKind        *metav1.GroupVersionKind     `json:"requestKind,omitempty"`
	RequestResource    *metav1.GroupVersionResource `json:"requestResource,omitempty"`
	RequestSubResource string                       `json:"requestSubResource,omitempty"`
	Name               string                       `json:"name,omitempty"`
	Namespace          string                       `json:"namespace,omitempty"`
	Operation          admissionv1.Operation        `json:"operation"`
	UserInfo           authenticationv1.UserInfo    `json:"userInfo"`
	DryRun             *bool                        `json:"dryRun,omitempty"`
}

// encodeReview writes the AdmissionReview for req with object, old and req's options as they
// are. encoding/json would validate and copy each embedded object again for every webhook; they
// are known to be valid JSON (checked once when the admission starts, or produced by the patch
// and conversion code), so they are written around instead.
func encodeReview(version string, req *admissionv1.AdmissionRequest, object, old json.RawMessage) ([]byte, error) {
	head, err := json.Marshal(reviewHead{
		UID: req.UID, Kind: req.Kind, Resource: req.Resource, SubResource: req.SubResource,
		RequestKind: req.RequestKind, RequestResource: req.RequestResource, RequestSubResource: req.RequestSubResource,
		Name: req.Name, Namespace: req.Namespace, Operation: req.Operation, UserInfo: req.UserInfo, DryRun: req.DryRun,
	})
	if err != nil {
		return nil, err
	}
	orNull := func(raw []byte) []byte {
		if len(raw) == 0 {
			return []byte("null")
		}
		return raw
	}
	var b bytes.Buffer
	b.Grow(len(head) + len(object) + len(old) + len(req.Options.Raw) + 128)
	b.WriteString(`{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/`)
	b.WriteString(version)
	b.WriteString(`","request":`)
	b.Write(head[:len(head)-1]) // without its closing brace
	b.WriteString(`,"object":`)
	b.Write(orNull(object))
	b.WriteString(`,"oldObject":`)
	b.Write(orNull(old))
	b.WriteString(`,"options":`)
	b.Write(orNull(req.Options.Raw))
	b.WriteString(`}}`)
	return b.Bytes(), nil
}

// post sends the review, retrying like client-go when the webhook answers 429 or 5xx with an
// integer Retry-After, and turns the answer into a decoded review or the error client-go gives.
func post(ctx context.Context, client *http.Client, target string, body []byte, version string) (*admissionv1.AdmissionReview, int, error) {
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
		if err != nil {
			return nil, 0, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, */*")
		req.Header.Set("User-Agent", "kube-apiserver-admission")
		resp, err := client.Do(req)
		if err != nil {
			return nil, 0, err
		}
		data, readErr := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
		resp.Body.Close()
		if readErr != nil {
			return nil, resp.StatusCode, fmt.Errorf("unexpected error when reading response body. Please retry. Original error: %w", readErr)
		}
		if len(data) > maxResponseBytes {
			return nil, resp.StatusCode, fmt.Errorf("response body exceeds %d bytes", maxResponseBytes)
		}
		if wait, ok := retryAfter(resp); ok && attempt < maxRetries {
			timer := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				timer.Stop()
				return nil, resp.StatusCode, ctx.Err()
			case <-timer.C:
			}
			continue
		}
		review, err := decodeResponse(resp, data, version)
		return review, resp.StatusCode, err
	}
}

// retryAfter reports whether client-go would retry: 429 or 5xx with an integer Retry-After.
func retryAfter(resp *http.Response) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < http.StatusInternalServerError {
		return 0, false
	}
	seconds, ok := retryAfterSeconds(resp)
	if !ok {
		return 0, false
	}
	return time.Duration(seconds) * time.Second, true
}

func retryAfterSeconds(resp *http.Response) (int, bool) {
	if h := resp.Header.Get("Retry-After"); h != "" {
		if i, err := strconv.Atoi(h); err == nil {
			return i, true
		}
	}
	return 0, false
}

// decodeResponse reproduces client-go's handling of an answer: non-2xx answers become API
// errors (the webhook's Status when it sent one), 2xx bodies are decoded as AdmissionReviews.
func decodeResponse(resp *http.Response, body []byte, version string) (*admissionv1.AdmissionReview, error) {
	headerType := resp.Header.Get("Content-Type")
	contentType := headerType
	if contentType == "" {
		contentType = "application/json"
	}
	mediaType, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	isText := headerType == "" || strings.HasPrefix(mediaType, "text/")
	if resp.StatusCode < http.StatusOK || resp.StatusCode > http.StatusPartialContent {
		if status, ok := decodeStatus(body); ok {
			return nil, &apierrors.StatusError{ErrStatus: *status}
		}
		message := "unknown"
		if isText {
			quoted := body
			if len(quoted) > unstructuredErrorBytes {
				quoted = quoted[:unstructuredErrorBytes]
			}
			message = strings.TrimSpace(string(quoted))
		}
		retry, _ := retryAfterSeconds(resp)
		return nil, apierrors.NewGenericServerResponse(resp.StatusCode, http.MethodPost, schema.GroupResource{}, "", message, retry, true)
	}
	if len(body) == 0 {
		return nil, fmt.Errorf("0-length response with status code: %d and content type: %s", resp.StatusCode, contentType)
	}
	body, err = asJSON(body)
	if err != nil {
		return nil, err
	}
	var head struct {
		APIVersion string `json:"apiVersion,omitempty"`
		Kind       string `json:"kind,omitempty"`
	}
	if err := json.Unmarshal(body, &head); err != nil {
		return nil, fmt.Errorf("couldn't get version/kind; json parse error: %w", err)
	}
	want := "admission.k8s.io/" + version
	if head.APIVersion != "" && head.Kind != "" && (head.APIVersion != want || head.Kind != "AdmissionReview") {
		// The apiserver decodes the declared type and cannot convert it to the one it asked for.
		return nil, fmt.Errorf("converting (%s, Kind=%s) to (%s, Kind=AdmissionReview): unknown conversion", head.APIVersion, head.Kind, want)
	}
	var review admissionv1.AdmissionReview
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &review); err != nil {
		return nil, fmt.Errorf("decoding the AdmissionReview: %w", err)
	}
	return &review, nil
}

// decodeStatus reads a metav1.Status with status Failure, as client-go looks for in error bodies.
func decodeStatus(body []byte) (*metav1.Status, bool) {
	body, err := asJSON(body)
	if err != nil {
		return nil, false
	}
	var status metav1.Status
	if err := json.Unmarshal(body, &status); err != nil {
		return nil, false
	}
	if status.Kind != "Status" || (status.APIVersion != "v1" && status.APIVersion != "") || status.Status != metav1.StatusFailure {
		return nil, false
	}
	return &status, true
}

// verifyResponse applies the apiserver's checks to an answer (v1 strictly, v1beta1 leniently).
func verifyResponse(uid types.UID, version string, mutating bool, review *admissionv1.AdmissionReview) error {
	if review.Response == nil {
		return errors.New("webhook response was absent")
	}
	resp := review.Response
	if version == "v1beta1" {
		if mutating && len(resp.Patch) > 0 {
			jsonPatch := admissionv1.PatchTypeJSONPatch
			resp.PatchType = &jsonPatch
		}
		if !mutating {
			resp.Patch, resp.PatchType = nil, nil
		}
		return nil
	}
	if resp.UID != uid {
		return fmt.Errorf("expected response.uid=%q, got %q", uid, resp.UID)
	}
	if got := review.GroupVersionKind(); got != admissionv1.SchemeGroupVersion.WithKind("AdmissionReview") {
		return fmt.Errorf("expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got %s", got.String())
	}
	if mutating {
		switch {
		case len(resp.Patch) > 0 && resp.PatchType == nil:
			return errors.New("webhook returned response.patch but not response.patchType")
		case len(resp.Patch) == 0 && resp.PatchType != nil:
			return errors.New("webhook returned response.patchType but not response.patch")
		case resp.PatchType != nil && *resp.PatchType == "":
			return errors.New(`webhook returned invalid response.patchType of ""`)
		}
		return nil
	}
	if len(resp.Patch) > 0 {
		return errors.New("validating webhook may not return response.patch")
	}
	if resp.PatchType != nil {
		return errors.New("validating webhook may not return response.patchType")
	}
	return nil
}

// asJSON reads a body as the apiserver's universal deserializer does, whatever its Content-Type:
// JSON when it starts with '{', YAML otherwise.
func asJSON(body []byte) ([]byte, error) {
	if trimmed := bytes.TrimLeftFunc(body, unicode.IsSpace); bytes.HasPrefix(trimmed, []byte("{")) {
		return body, nil
	}
	return yaml.YAMLToJSON(body)
}
