package reportstore

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"

	"github.com/admitkit/admit/audit"
)

// Labels and keys of the ConfigMaps a Store writes.
const (
	// AuditLabel is set on a shard's ConfigMap to the audit's name: Shards reads the ConfigMaps
	// of that label.
	AuditLabel = "audit.admit.dev/audit"
	// ShardLabel is a shard's "INDEX-of-COUNT", for kubectl get -L.
	ShardLabel = "audit.admit.dev/shard"
	// ReportKey holds a report's JSON, gzipped; HTMLKey a merged report's page, gzipped.
	ReportKey = "report.json.gz"
	HTMLKey   = "report.html.gz"
	// MaxBytes is the most a ConfigMap holds: kube-apiserver refuses one whose data and
	// binaryData add up to more.
	MaxBytes = 1 << 20
)

// fieldManager names the Store's writes in the ConfigMaps' managedFields.
const fieldManager = "admit-audit"

// Store keeps reports in the ConfigMaps of one namespace.
type Store struct {
	Client    kubernetes.Interface
	Namespace string
}

// ShardName is the name of the ConfigMap of shard's report of the audit name.
func ShardName(name string, shard audit.Shard) string {
	return fmt.Sprintf("%s-%d-of-%d", name, shard.Index, shard.Count)
}

// CheckWritable asks the cluster whether the Store may create and update ConfigMaps in its
// namespace, so that a shard without the permission fails before it audits rather than after.
func (s *Store) CheckWritable(ctx context.Context) error {
	for _, verb := range []string{"create", "update"} {
		review, err := s.Client.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
				Namespace: s.Namespace, Verb: verb, Resource: "configmaps",
			}},
		}, metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("asking whether ConfigMaps of namespace %s can be written: %w", s.Namespace, err)
		}
		if !review.Status.Allowed {
			why := ""
			if review.Status.Reason != "" {
				why = " (" + review.Status.Reason + ")"
			}
			return fmt.Errorf("ConfigMaps of namespace %s cannot be written: %s is not allowed%s", s.Namespace, verb, why)
		}
	}
	return nil
}

// PutShard stores a shard's report in ConfigMap ShardName(name, its shard), labelled AuditLabel
// name, creating it or replacing the one there (the same shard of an earlier run). It returns
// the ConfigMap's name.
func (s *Store) PutShard(ctx context.Context, name string, report *audit.Report) (string, error) {
	if report.Shard == nil {
		return "", fmt.Errorf("storing the report of audit %s: not a shard's report (audit.Options.Shard)", name)
	}
	if errs := validation.IsValidLabelValue(name); len(errs) > 0 {
		return "", fmt.Errorf("audit name %q: %s", name, strings.Join(errs, "; "))
	}
	shard := audit.Shard{Index: report.Shard.Index, Count: report.Shard.Count}
	cm := ShardName(name, shard)
	data, err := json.Marshal(report)
	if err != nil {
		return "", fmt.Errorf("storing shard %s of audit %s: %w", shard, name, err)
	}
	labels := map[string]string{
		audit.ManagedByLabel: audit.PolicyReportSource,
		AuditLabel:           name,
		ShardLabel:           fmt.Sprintf("%d-of-%d", shard.Index, shard.Count),
	}
	if err := s.put(ctx, cm, labels, map[string][]byte{ReportKey: data}); err != nil {
		return "", fmt.Errorf("storing shard %s of audit %s: %w", shard, name, err)
	}
	return cm, nil
}

// Shards reads back the reports of every shard of the audit name stored in the namespace, in
// the order of their ConfigMaps' names, each named "ConfigMap NAMESPACE/NAME" for audit.Merge's
// errors. It is an error when there are none.
func (s *Store) Shards(ctx context.Context, name string) ([]audit.ShardReport, error) {
	if errs := validation.IsValidLabelValue(name); len(errs) > 0 {
		return nil, fmt.Errorf("audit name %q: %s", name, strings.Join(errs, "; "))
	}
	selector := labels.SelectorFromSet(labels.Set{AuditLabel: name}).String()
	// A page holds a few shards' reports, each up to MaxBytes: the whole list at once could be
	// hundreds of megabytes.
	opts := metav1.ListOptions{LabelSelector: selector, Limit: 8}
	var out []audit.ShardReport
	for {
		list, err := s.Client.CoreV1().ConfigMaps(s.Namespace).List(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("listing the ConfigMaps of audit %s in namespace %s: %w", name, s.Namespace, err)
		}
		for i := range list.Items {
			cm := &list.Items[i]
			where := "ConfigMap " + s.Namespace + "/" + cm.Name
			report, err := readReport(cm)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			out = append(out, audit.ShardReport{Name: where, Report: report})
		}
		if opts.Continue = list.Continue; opts.Continue == "" {
			break
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no ConfigMap of namespace %s is labelled %s: no shard of audit %s stored its report there", s.Namespace, selector, name)
	}
	return out, nil
}

// PutReport stores a report — a merged one, or any other — in ConfigMap name: its JSON
// (ReportKey) and its HTML page (HTMLKey), creating the ConfigMap or replacing the one there.
func (s *Store) PutReport(ctx context.Context, name string, report *audit.Report) error {
	data, err := json.Marshal(report)
	if err != nil {
		return fmt.Errorf("storing the report in ConfigMap %s: %w", name, err)
	}
	var page bytes.Buffer
	if err := report.WriteHTML(&page); err != nil {
		return fmt.Errorf("storing the report in ConfigMap %s: its page: %w", name, err)
	}
	labels := map[string]string{audit.ManagedByLabel: audit.PolicyReportSource}
	if err := s.put(ctx, name, labels, map[string][]byte{ReportKey: data, HTMLKey: page.Bytes()}); err != nil {
		return fmt.Errorf("storing the report in ConfigMap %s: %w", name, err)
	}
	return nil
}

// Report reads the report of ConfigMap name, as PutReport or PutShard stored it.
func (s *Store) Report(ctx context.Context, name string) (*audit.Report, error) {
	cm, err := s.Client.CoreV1().ConfigMaps(s.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading the report of ConfigMap %s/%s: %w", s.Namespace, name, err)
	}
	report, err := readReport(cm)
	if err != nil {
		return nil, fmt.Errorf("ConfigMap %s/%s: %w", s.Namespace, name, err)
	}
	return report, nil
}

// put writes files gzipped in the binaryData of ConfigMap name: created, or replaced whole.
func (s *Store) put(ctx context.Context, name string, labels map[string]string, files map[string][]byte) error {
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return fmt.Errorf("ConfigMap name %q: %s", name, strings.Join(errs, "; "))
	}
	binary := map[string][]byte{}
	size, raw := 0, 0
	for key, data := range files {
		z, err := gzipped(data)
		if err != nil {
			return err
		}
		binary[key] = z
		size += len(z)
		raw += len(data)
	}
	if size > MaxBytes {
		return fmt.Errorf("%d bytes gzipped (%d bytes raw), more than the %d a ConfigMap holds: list fewer writes (admit audit --limit)", size, raw, MaxBytes)
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: s.Namespace, Labels: labels},
		BinaryData: binary,
	}
	configMaps := s.Client.CoreV1().ConfigMaps(s.Namespace)
	_, err := configMaps.Create(ctx, cm, metav1.CreateOptions{FieldManager: fieldManager})
	if apierrors.IsAlreadyExists(err) {
		// An earlier run's: replaced whole (a ConfigMap may be updated without its
		// resourceVersion), so that no key of it is left over.
		_, err = configMaps.Update(ctx, cm, metav1.UpdateOptions{FieldManager: fieldManager})
	}
	if err != nil {
		return fmt.Errorf("writing ConfigMap %s/%s: %w", s.Namespace, name, err)
	}
	return nil
}

// readReport reads the report of a ConfigMap PutShard or PutReport wrote.
func readReport(cm *corev1.ConfigMap) (*audit.Report, error) {
	z, ok := cm.BinaryData[ReportKey]
	if !ok {
		return nil, fmt.Errorf("no %s in its binaryData: not a ConfigMap admit audit --to-configmap wrote", ReportKey)
	}
	r, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ReportKey, err)
	}
	report, err := audit.ReadReport(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ReportKey, err)
	}
	return report, nil
}

// gzipped is data compressed; the same data gives the same bytes (no time in the header).
func gzipped(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(w, bytes.NewReader(data)); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
