package chain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crconversion "k8s.io/apiextensions-apiserver/pkg/apiserver/conversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/admitkit/admit/resources/convert"
)

// Conversion is how the chain reaches the conversion webhooks of CRDs that convert with strategy
// Webhook.
type Conversion struct {
	// ServiceResolver places the services conversion webhooks name, as a webhook's services are
	// placed (review.Services.Resolve). Without it, a conversion webhook behind a service fails
	// the conversion with an error naming the service: off a cluster, NAME.NAMESPACE.svc
	// resolves nowhere.
	ServiceResolver func(namespace, name string, port int32) (hostport string, err error)
	// DefaultCABundle is the caBundle of conversion webhooks whose clientConfig has none, as
	// cert-manager's CA injector fills it in a cluster.
	DefaultCABundle []byte
}

// Converter converts objects between equivalent versions as kube-apiserver does in admission and
// storage: the built-in pairs and custom resources converting with strategy None as package
// resources/convert does, custom resources converting with strategy Webhook through their CRD's
// conversion webhook, with Kubernetes' own webhook converter (the ConversionReview version the
// CRD accepts, the apiserver's 30-second client timeout, the answer checked, metadata other than
// labels and annotations restored, the apiserver's error messages). Build it with NewConverter;
// it is safe for concurrent use.
type Converter struct {
	others   *convert.Converter
	factory  *crconversion.CRConverterFactory
	webhooks map[schema.GroupKind]*apiextensionsv1.CustomResourceDefinition

	mu sync.Mutex
	// built are the webhook converters built so far, by kind: a CRD's client is built when an
	// object of it is first converted, as most CRDs of a cluster's state never are.
	built map[schema.GroupKind]builtConverter
}

type builtConverter struct {
	convertor runtime.ObjectConvertor
	err       error
}

// NewConverter returns the Converter for crds.
func NewConverter(crds []*apiextensionsv1.CustomResourceDefinition, conv Conversion) (*Converter, error) {
	others, err := convert.New(crds...)
	if err != nil {
		return nil, err
	}
	c := &Converter{others: others, webhooks: map[schema.GroupKind]*apiextensionsv1.CustomResourceDefinition{}, built: map[schema.GroupKind]builtConverter{}}
	for _, crd := range crds {
		if crd.Spec.Conversion == nil || crd.Spec.Conversion.Strategy != apiextensionsv1.WebhookConverter {
			continue
		}
		if crd.Spec.Conversion.Webhook == nil || crd.Spec.Conversion.Webhook.ClientConfig == nil {
			return nil, fmt.Errorf("CustomResourceDefinition %q: spec.conversion.webhook.clientConfig is required when strategy is set to Webhook", crd.Name)
		}
		crd = crd.DeepCopy()
		if cc := crd.Spec.Conversion.Webhook.ClientConfig; len(cc.CABundle) == 0 {
			cc.CABundle = conv.DefaultCABundle
		}
		if cc := crd.Spec.Conversion.Webhook.ClientConfig; cc.Service != nil && cc.Service.Port == nil {
			port := int32(443) // the apiserver's default
			cc.Service.Port = &port
		}
		c.webhooks[schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}] = crd
	}
	if len(c.webhooks) > 0 {
		resolver := serviceResolver{place: conv.ServiceResolver}
		if c.factory, err = crconversion.NewCRConverterFactory(resolver, nil); err != nil {
			return nil, fmt.Errorf("the conversion webhooks' client: %w", err)
		}
	}
	return c, nil
}

// Convert returns object, which names its own apiVersion and kind, in the version of to.
// Converting to the object's own version returns it unchanged.
func (c *Converter) Convert(ctx context.Context, object json.RawMessage, to schema.GroupVersionKind) (json.RawMessage, error) {
	if _, ok := c.webhooks[to.GroupKind()]; !ok {
		return c.others.Convert(ctx, object, to)
	}
	// Most calls (the storage round trip of an object already in the storage version) convert
	// nothing: the object's type is read before the object.
	var head metav1.TypeMeta
	if err := json.Unmarshal(object, &head); err != nil {
		return nil, fmt.Errorf("decoding the %s to convert: %w", to.GroupKind(), err)
	}
	if head.GroupVersionKind() == to {
		return object, nil
	}
	in := &unstructured.Unstructured{}
	if err := in.UnmarshalJSON(object); err != nil {
		return nil, fmt.Errorf("decoding the %s to convert: %w", to.GroupKind(), err)
	}
	convertor, err := c.convertor(to.GroupKind())
	if err != nil {
		return nil, err
	}
	out, err := convertor.ConvertToVersion(in, to.GroupVersion())
	if err != nil {
		return nil, err
	}
	converted, ok := out.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("converting %s to %s: the converter returned a %T", in.GroupVersionKind(), to.GroupVersion(), out)
	}
	return json.Marshal(converted.Object)
}

// convertor returns the CRD's converter for gk, built on first use.
func (c *Converter) convertor(gk schema.GroupKind) (runtime.ObjectConvertor, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.built[gk]; ok {
		return b.convertor, b.err
	}
	crd := c.webhooks[gk]
	_, unsafe, err := c.factory.NewConverter(crd)
	if err != nil {
		err = fmt.Errorf("the conversion webhook of CustomResourceDefinition %q: %w", crd.Name, err)
	}
	c.built[gk] = builtConverter{convertor: unsafe, err: err}
	return unsafe, err
}

// serviceResolver places a conversion webhook's service where the Conversion's ServiceResolver
// says.
type serviceResolver struct {
	place func(namespace, name string, port int32) (string, error)
}

// ErrServiceNotPlaced is the error a conversion webhook behind a service fails with when the
// Conversion places no service.
var ErrServiceNotPlaced = errors.New("no address is given for it")

func (r serviceResolver) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	if r.place == nil {
		return nil, fmt.Errorf("service %s/%s: %w", namespace, name, ErrServiceNotPlaced)
	}
	hostport, err := r.place(namespace, name, port)
	if err != nil {
		return nil, fmt.Errorf("service %s/%s: %w", namespace, name, err)
	}
	if _, _, err := net.SplitHostPort(hostport); err != nil {
		return nil, fmt.Errorf("service %s/%s is placed at %q: %w", namespace, name, hostport, err)
	}
	return &url.URL{Scheme: "https", Host: hostport}, nil
}
