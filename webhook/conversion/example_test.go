package conversion_test

import (
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/admitkit/admit/webhook/conversion"
)

// ShirtV1 writes the size as a letter; ShirtV2, the hub, in centimetres.
type ShirtV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Size              string `json:"size"`
}

type ShirtV2 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	ChestCM           int `json:"chestCM"`
}

func Example() {
	sizes := map[string]int{"S": 92, "M": 100, "L": 108}
	hub := conversion.NewHub[ShirtV2]("Shirt")
	err := conversion.AddVersion(hub, "shop.example.com/v1",
		func(v *ShirtV1, h *ShirtV2) error {
			cm, ok := sizes[strings.ToUpper(v.Size)]
			if !ok {
				return fmt.Errorf("size %q is not S, M or L", v.Size)
			}
			h.ChestCM = cm
			return nil
		},
		func(h *ShirtV2, v *ShirtV1) error {
			switch {
			case h.ChestCM <= sizes["S"]:
				v.Size = "S"
			case h.ChestCM <= sizes["M"]:
				v.Size = "M"
			default:
				v.Size = "L"
			}
			return nil
		})
	if err == nil {
		err = conversion.AddHubVersion(hub, "shop.example.com/v2") // v2 is the hub itself
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	out, err := hub.Convert(context.Background(), []byte(`{"apiVersion":"shop.example.com/v1","kind":"Shirt","metadata":{"name":"tee"},"size":"m"}`), "shop.example.com/v2")
	fmt.Println(string(out), err)
	// Serve it beside admission webhooks with webhook.Registry.RegisterConversion, which also
	// writes the CRD's spec.conversion (CRDConversion); or alone:
	// http.Handle("/convert", conversion.NewHTTPHandler(hub, conversion.Options{}))
	// Output:
	// {"apiVersion":"shop.example.com/v2","chestCM":100,"kind":"Shirt","metadata":{"name":"tee"}} <nil>
}

// A version that lacks a field can keep it in an annotation, so that a round trip through that
// version loses nothing: v1's size letter cannot say 96 cm, so fromHub stashes the exact chest in
// an annotation and toHub reads it back and deletes it. Neither copies metadata: toHub's hub
// starts with the v1 object's, fromHub's v1 with the hub's, and the converted object keeps the
// labels and annotations they leave.
func Example_stashInAnnotation() {
	const stash = "shop.example.com/v2-chest-cm"
	sizes := map[string]int{"S": 92, "M": 100, "L": 108}
	hub := conversion.NewHub[ShirtV2]("Shirt")
	err := conversion.AddVersion(hub, "shop.example.com/v1",
		func(v *ShirtV1, h *ShirtV2) error {
			h.ChestCM = sizes[v.Size]
			if cm, ok := h.Annotations[stash]; ok {
				if _, err := fmt.Sscan(cm, &h.ChestCM); err != nil {
					return fmt.Errorf("annotation %s: %w", stash, err)
				}
				delete(h.Annotations, stash)
			}
			return nil
		},
		func(h *ShirtV2, v *ShirtV1) error {
			v.Size = "L"
			if h.ChestCM <= sizes["M"] {
				v.Size = "M"
			}
			if v.Annotations == nil {
				v.Annotations = map[string]string{}
			}
			v.Annotations[stash] = fmt.Sprint(h.ChestCM)
			return nil
		})
	if err == nil {
		err = conversion.AddHubVersion(hub, "shop.example.com/v2")
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	v2 := `{"apiVersion":"shop.example.com/v2","kind":"Shirt","metadata":{"name":"tee","labels":{"line":"basic"}},"chestCM":96}`
	v1, err := hub.Convert(context.Background(), []byte(v2), "shop.example.com/v1")
	fmt.Println(string(v1), err)
	back, err := hub.Convert(context.Background(), v1, "shop.example.com/v2")
	fmt.Println(string(back), err)
	// Output:
	// {"apiVersion":"shop.example.com/v1","kind":"Shirt","metadata":{"annotations":{"shop.example.com/v2-chest-cm":"96"},"labels":{"line":"basic"},"name":"tee"},"size":"M"} <nil>
	// {"apiVersion":"shop.example.com/v2","chestCM":96,"kind":"Shirt","metadata":{"labels":{"line":"basic"},"name":"tee"}} <nil>
}
