package review

import (
	"bytes"
	"context"
	"encoding/pem"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/admitkit/admit/config"
	"github.com/admitkit/admit/examples/quickstart"
	"github.com/admitkit/admit/internal/structured"
	"github.com/admitkit/admit/webhook"
)

// streamCase is an input reviewed by Session.Review with all of it held and by a Stream.
type streamCase struct {
	name string
	// input and olds are YAML; olds are the UPDATEs' old objects.
	input, olds string
	cfg         func(*Config)
	w           Write
	// wantErr is the error of Session.Review, and of NewStream before anything is reviewed.
	wantErr string
	// want are strings the reviews' JSON holds: what the case is about happened.
	want []string
	// wantPolicies is what the survey counts.
	wantPolicies int
}

// quickstartConfig serves the quickstart's webhooks (a Pod sidecar injector, a ConfigMap key
// check) over TLS until the test ends, and is a Config with their configurations.
func quickstartConfig(t *testing.T) Config {
	t.Helper()
	registry, err := quickstart.NewRegistry(webhook.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	server := httptest.NewTLSServer(registry)
	t.Cleanup(server.Close)
	caBundle := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: server.Certificate().Raw})
	configurations, err := registry.ConfigurationsYAML(webhook.ConfigOptions{
		Name: "quickstart", ClientConfig: webhook.ClientConfig{URL: server.URL, CABundle: caBundle},
	})
	if err != nil {
		t.Fatal(err)
	}
	set, err := config.Parse("webhooks.yaml", configurations)
	if err != nil {
		t.Fatal(err)
	}
	moment := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return Config{Mutating: set.MutatingConfigs(), Validating: set.ValidatingConfigs(), Now: func() time.Time { return moment }}
}

// parseInputs parses YAML named label, none for "".
func parseInputs(t *testing.T, label, data string) []Input {
	t.Helper()
	if data == "" {
		return nil
	}
	in, err := Parse(label, []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// copyInputs copies objects: a review may change those it is given (a namespace set).
func copyInputs(objects []Input) []Input {
	out := make([]Input, len(objects))
	for i, in := range objects {
		out[i] = Input{Source: in.Source, Object: in.Object.DeepCopy()}
	}
	return out
}

// listJSON is the outcomes as `admit review -o json` prints them, the measured durations zeroed.
func listJSON(t *testing.T, outcomes []*Outcome) string {
	t.Helper()
	for _, o := range outcomes {
		if o.Result == nil {
			continue
		}
		for i := range o.Result.Rows {
			o.Result.Rows[i].Duration, o.Result.Rows[i].DurationSeconds = 0, 0
		}
	}
	var b bytes.Buffer
	if err := structured.Write(&b, structured.JSON, ListOf(outcomes)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// printedReview is a review's printed List and what it assumed of the cluster.
type printedReview struct {
	list    string
	assumed []string
}

// reviewHeld reviews the case's objects held at once with Session.Review.
func reviewHeld(t *testing.T, cfg Config, objects, olds []Input, w Write) (printedReview, error) {
	t.Helper()
	objects = copyInputs(objects)
	s, err := New(cfg, objects)
	if err != nil {
		t.Fatal(err)
	}
	outcomes, err := s.Review(context.Background(), w, objects, copyInputs(olds))
	if err != nil {
		return printedReview{}, err
	}
	return printedReview{listJSON(t, outcomes), s.Assumed()}, nil
}

// reviewStreamed reviews the case's objects with a Stream of a SliceSource.
func reviewStreamed(t *testing.T, cfg Config, objects, olds []Input, w Write, wantPolicies int) (printedReview, error) {
	t.Helper()
	survey, err := SurveyOf(SliceSource(objects))
	if err != nil {
		t.Fatal(err)
	}
	if survey.Len() != len(objects) || survey.Policies() != wantPolicies {
		t.Errorf("survey: %d objects, %d policies; want %d, %d", survey.Len(), survey.Policies(), len(objects), wantPolicies)
	}
	st, err := NewStream(cfg, survey, copyInputs(olds), w)
	if err != nil {
		return printedReview{}, err
	}
	var outcomes []*Outcome
	err = st.Review(context.Background(), func(o *Outcome) error {
		outcomes = append(outcomes, o)
		return nil
	})
	if err != nil {
		t.Fatalf("Review: %v", err)
	}
	return printedReview{listJSON(t, outcomes), st.Assumed()}, nil
}

// A Stream gives the outcomes Session.Review gives for the same objects held at once, byte for
// byte as printed, and assumes the same of the cluster, one at a time and sixteen at a time.
func TestStreamIsReview(t *testing.T) {
	base := quickstartConfig(t)
	for _, tt := range streamCases() {
		t.Run(tt.name, func(t *testing.T) {
			objects := parseInputs(t, "input.yaml", tt.input)
			olds := parseInputs(t, "old.yaml", tt.olds)
			var lists []string
			for _, concurrency := range []int{1, 16} {
				cfg := base
				cfg.Concurrency = concurrency
				if tt.cfg != nil {
					tt.cfg(&cfg)
				}
				held, heldErr := reviewHeld(t, cfg, objects, olds, tt.w)
				streamed, streamErr := reviewStreamed(t, cfg, objects, olds, tt.w, tt.wantPolicies)
				if tt.wantErr != "" {
					for name, err := range map[string]error{"Session.Review": heldErr, "NewStream": streamErr} {
						if err == nil || err.Error() != tt.wantErr {
							t.Errorf("%s: err = %v\nwant %s", name, err, tt.wantErr)
						}
					}
					continue
				}
				if heldErr != nil || streamErr != nil {
					t.Fatalf("Session.Review: %v; NewStream: %v", heldErr, streamErr)
				}
				if diff := cmp.Diff(held, streamed, cmp.AllowUnexported(printedReview{})); diff != "" {
					t.Fatalf("concurrency %d: the stream differs from Session.Review (-held +streamed):\n%s", concurrency, diff)
				}
				lists = append(lists, streamed.list)
			}
			if tt.wantErr != "" {
				return
			}
			if diff := cmp.Diff(lists[0], lists[1]); diff != "" {
				t.Errorf("one at a time and sixteen at a time differ (-1 +16):\n%s", diff)
			}
			for _, want := range tt.want {
				if !strings.Contains(lists[0], want) {
					t.Errorf("no review holds %s:\n%s", want, lists[0])
				}
			}
		})
	}
}

// streamCases are TestStreamIsReview's inputs.
func streamCases() []streamCase {
	complete := func(cfg *Config) {
		cfg.CompleteState = true
		cfg.Cluster = []*unstructured.Unstructured{namespaceObject("shop", nil)}
	}
	return append(streamCreates(), []streamCase{{
		name:  "UPDATEs paired with their olds",
		input: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kept, namespace: shop}\ndata: {k: v2}\n---\n" + configMapYAML("made", "shop"),
		olds:  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kept, namespace: shop}\ndata: {k: v1}\n",
		want:  []string{`"operation": "UPDATE"`, `"operation": "CREATE"`},
	}, {
		name:    "an old object no object pairs with",
		input:   configMapYAML("kept", "shop"),
		olds:    configMapYAML("kept", "shop") + "---\n" + configMapYAML("gone", "shop"),
		wantErr: "old.yaml:6: ConfigMap shop/gone is in the old objects but not among the objects to review (an UPDATE pairs objects of the same kind, namespace and name)",
	}, {
		name:  "-n: an object of another namespace",
		input: configMapYAML("here", "team") + "---\n" + configMapYAML("there", "other") + "---\n" + "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: unnamed}\n",
		w:     Write{Namespace: "team", NamespaceRequired: true},
		want:  []string{`does not match the namespace \"team\"`, `"namespace": "team"`},
	}, {
		name:  "the state complete, no olds: a namespace the state lacks does not exist",
		input: shopState + "---\n" + podYAML("api", "shop", "builder") + "---\n" + podYAML("lost", "nowhere", ""),
		cfg:   complete,
		want:  []string{`"cpu": "100m"`, `namespaces \"nowhere\" not found`},
	}, {
		name:  "the state complete, with olds",
		input: "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kept, namespace: shop}\ndata: {k: v2}\n---\n" + podYAML("lost", "nowhere", ""),
		olds:  configMapYAML("kept", "shop"),
		cfg:   complete,
		want:  []string{`"operation": "UPDATE"`, `namespaces \"nowhere\" not found`},
	}, {
		name: "admission policies among the objects are reviewed, not applied",
		input: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: nothing}
spec:
  matchConstraints: {resourceRules: [{apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}]}
  validations: [{expression: "false", message: no ConfigMaps}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: nothing}
spec: {policyName: nothing, validationActions: [Deny]}
---
` + configMapYAML("allowed", "shop"),
		wantPolicies: 2,
		want:         []string{`"kind": "ValidatingAdmissionPolicyBinding"`, `"name": "allowed"`},
	}, {
		name:  "webhooks only",
		input: podYAML("api", "shop", "") + "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad, namespace: shop}\ndata: {Bad_Key: x}\n",
		cfg:   func(cfg *Config) { cfg.WebhooksOnly = true },
		want:  []string{`"name": "proxy"`, `Bad_Key`},
	}}...)
}

// shopState is a Namespace whose label Pod Security reads, a LimitRange that defaults the
// Pods' requests and a ServiceAccount a Pod runs as: what the others' admission reads.
const shopState = `apiVersion: v1
kind: Namespace
metadata: {name: shop, labels: {pod-security.kubernetes.io/enforce: baseline}}
---
apiVersion: v1
kind: LimitRange
metadata: {name: defaults, namespace: shop}
spec: {limits: [{type: Container, defaultRequest: {cpu: 100m}}]}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: builder, namespace: shop}
`

// widgetCRD defines the custom kind Widget, whose size defaults to 1.
const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: {type: object, properties: {size: {type: integer, default: 1}}}}}}
`

// streamCreates are the cases of objects created.
func streamCreates() []streamCase {
	gadget := "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g, namespace: shop}\n"
	return []streamCase{{
		name: "objects of several kinds",
		input: podYAML("api", "shop", "") + "---\n" + configMapYAML("settings", "shop") +
			"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad, namespace: shop}\ndata: {Bad_Key: x}\n---\n" +
			"apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\nspec: {selector: {app: web}, ports: [{port: 80}]}\n---\n" +
			"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n---\n" +
			"apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: reader}\nrules: [{apiGroups: [\"\"], resources: [pods], verbs: [get]}]\n",
		want: []string{`"name": "proxy"`, `"clusterIP": "10.96.`, `Bad_Key`, `"kind": "ClusterRole"`},
	}, {
		name: "a Namespace, LimitRange and ServiceAccount that the others' admission reads",
		input: podYAML("before", "shop", "builder") + "---\n" + shopState + "---\n" + podYAML("api", "shop", "builder") + "---\n" +
			"apiVersion: v1\nkind: Pod\nmetadata: {name: host, namespace: shop}\nspec: {hostNetwork: true, containers: [{name: c, image: busybox}]}\n",
		want: []string{`"cpu": "100m"`, `violates PodSecurity`, `"serviceAccountName": "builder"`},
	}, {
		name:  "a custom resource before its CRD",
		input: "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: shop}\nspec: {}\n---\n" + widgetCRD,
		want:  []string{`"size": 1`, `"kind": "Widget"`},
	}, {
		name:  "a generateName",
		input: "apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: settings-, namespace: shop}\ndata: {a: b}\n",
		want:  []string{`"name": "settings-`},
	}, {
		name:  "an object that does not decode",
		input: "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nspec: {containers: notalist}\n---\n" + configMapYAML("fine", "shop"),
		want:  []string{`cannot be handled as a Pod`, `"name": "fine"`},
	}, {
		name:  "a custom kind without its CRD",
		input: gadget + "---\n" + configMapYAML("fine", "shop"),
		want:  []string{`custom kinds need their CustomResourceDefinition`, `"name": "fine"`},
	}, {
		name:  "a custom kind without its CRD, skipped",
		input: gadget + "---\n" + configMapYAML("fine", "shop"),
		cfg:   func(cfg *Config) { cfg.SkipMissingCRDs = true },
		want:  []string{`"skipped": "no resource for kind`, `"name": "fine"`},
	}}
}

func configMapYAML(name, namespace string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + ", namespace: " + namespace + "}\ndata: {key: value}\n"
}

// podYAML is a Pod running as serviceAccount, the default for "".
func podYAML(name, namespace, serviceAccount string) string {
	sa := ""
	if serviceAccount != "" {
		sa = "serviceAccountName: " + serviceAccount + ", "
	}
	return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: " + namespace + "}\nspec: {" + sa + "containers: [{name: app, image: busybox}]}\n"
}

func namespaceObject(name string, labels map[string]any) *unstructured.Unstructured {
	meta := map[string]any{"name": name}
	if labels != nil {
		meta["labels"] = labels
	}
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": meta}}
}
