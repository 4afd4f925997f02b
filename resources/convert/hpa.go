package convert

import (
	"encoding/json"
	"fmt"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Annotations in which autoscaling/v1 carries what only autoscaling/v2 can say, so that an object
// written through v2 and updated through v1 loses nothing.
const (
	metricsAnnotation        = "autoscaling.alpha.kubernetes.io/metrics"
	currentMetricsAnnotation = "autoscaling.alpha.kubernetes.io/current-metrics"
	conditionsAnnotation     = "autoscaling.alpha.kubernetes.io/conditions"
	behaviorAnnotation       = "autoscaling.alpha.kubernetes.io/behavior"
	// The apiserver no longer writes these two (the tolerances ride in the behavior annotation)
	// but still drops them.
	scaleDownToleranceAnnotation = "autoscaling.alpha.kubernetes.io/scale-down-tolerance"
	scaleUpToleranceAnnotation   = "autoscaling.alpha.kubernetes.io/scale-up-tolerance"
)

// defaultCPUUtilization is the target autoscaling/v1 implies when an object names none: the HPA
// controller once applied it, so conversion to v2 makes it explicit.
const defaultCPUUtilization = 80

// annotatedBehavior is the shape of the behavior annotation. The apiserver marshals its internal
// type, which has no JSON tags, so the keys are Go field names and nil fields are null.
type annotatedBehavior struct {
	ScaleUp   *annotatedScalingRules
	ScaleDown *annotatedScalingRules
}

type annotatedScalingRules struct {
	StabilizationWindowSeconds *int32
	SelectPolicy               *autoscalingv2.ScalingPolicySelect
	Policies                   []annotatedScalingPolicy
	Tolerance                  *resource.Quantity
}

type annotatedScalingPolicy struct {
	Type          autoscalingv2.HPAScalingPolicyType
	Value         int32
	PeriodSeconds int32
}

// hpaV2ToV1 keeps the first CPU utilization target in spec and every other metric, the
// behavior, the current metrics and the conditions in annotations.
func hpaV2ToV1(in *autoscalingv2.HorizontalPodAutoscaler) (*autoscalingv1.HorizontalPodAutoscaler, error) {
	out := &autoscalingv1.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: in.ObjectMeta,
		Spec: autoscalingv1.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv1.CrossVersionObjectReference(in.Spec.ScaleTargetRef),
			MinReplicas:    in.Spec.MinReplicas,
			MaxReplicas:    in.Spec.MaxReplicas,
		},
		Status: autoscalingv1.HorizontalPodAutoscalerStatus{
			ObservedGeneration: in.Status.ObservedGeneration,
			LastScaleTime:      in.Status.LastScaleTime,
			CurrentReplicas:    in.Status.CurrentReplicas,
			DesiredReplicas:    in.Status.DesiredReplicas,
		},
	}
	out.Annotations = withoutRoundTripAnnotations(in.Annotations)

	var otherMetrics []autoscalingv1.MetricSpec
	for _, m := range in.Spec.Metrics {
		if isCPUUtilization(m) {
			if out.Spec.TargetCPUUtilizationPercentage == nil {
				out.Spec.TargetCPUUtilizationPercentage = m.Resource.Target.AverageUtilization
			}
			continue
		}
		otherMetrics = append(otherMetrics, metricSpecToV1(m))
	}
	var currentMetrics []autoscalingv1.MetricStatus
	for _, m := range in.Status.CurrentMetrics {
		if m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU && m.Resource.Current.AverageUtilization != nil {
			out.Status.CurrentCPUUtilizationPercentage = m.Resource.Current.AverageUtilization
		}
		currentMetrics = append(currentMetrics, metricStatusToV1(m))
	}
	var conditions []autoscalingv1.HorizontalPodAutoscalerCondition
	for _, c := range in.Status.Conditions {
		conditions = append(conditions, autoscalingv1.HorizontalPodAutoscalerCondition{
			Type: autoscalingv1.HorizontalPodAutoscalerConditionType(c.Type), Status: c.Status,
			LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message,
		})
	}

	annotate := func(key string, value any) error {
		data, err := json.Marshal(value)
		if err != nil {
			return fmt.Errorf("encoding annotation %s: %w", key, err)
		}
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[key] = string(data)
		return nil
	}
	if len(otherMetrics) > 0 {
		if err := annotate(metricsAnnotation, otherMetrics); err != nil {
			return nil, err
		}
	}
	if len(currentMetrics) > 0 {
		if err := annotate(currentMetricsAnnotation, currentMetrics); err != nil {
			return nil, err
		}
	}
	if in.Spec.Behavior != nil {
		if err := annotate(behaviorAnnotation, behaviorToAnnotation(in.Spec.Behavior)); err != nil {
			return nil, err
		}
	}
	if len(conditions) > 0 {
		if err := annotate(conditionsAnnotation, conditions); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// hpaV1ToV2 reads the annotations back. Annotations that do not decode are ignored, as the
// apiserver ignores them; all of them are dropped from the v2 object.
func hpaV1ToV2(in *autoscalingv1.HorizontalPodAutoscaler) (*autoscalingv2.HorizontalPodAutoscaler, error) {
	out := &autoscalingv2.HorizontalPodAutoscaler{
		TypeMeta:   metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"},
		ObjectMeta: in.ObjectMeta,
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference(in.Spec.ScaleTargetRef),
			MinReplicas:    in.Spec.MinReplicas,
			MaxReplicas:    in.Spec.MaxReplicas,
		},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{
			ObservedGeneration: in.Status.ObservedGeneration,
			LastScaleTime:      in.Status.LastScaleTime,
			CurrentReplicas:    in.Status.CurrentReplicas,
			DesiredReplicas:    in.Status.DesiredReplicas,
		},
	}
	annotations := in.Annotations
	out.Annotations = withoutRoundTripAnnotations(in.Annotations)

	// The CPU target comes after the annotated metrics: v1 cannot say where it was among them.
	if in.Spec.TargetCPUUtilizationPercentage != nil {
		out.Spec.Metrics = []autoscalingv2.MetricSpec{cpuUtilization(*in.Spec.TargetCPUUtilizationPercentage)}
	}
	if encoded, ok := annotations[metricsAnnotation]; ok {
		var others []autoscalingv1.MetricSpec
		if json.Unmarshal([]byte(encoded), &others) == nil {
			metrics := make([]autoscalingv2.MetricSpec, 0, len(others)+len(out.Spec.Metrics))
			for _, m := range others {
				metrics = append(metrics, metricSpecToV2(m))
			}
			out.Spec.Metrics = append(metrics, out.Spec.Metrics...)
		}
	}
	if len(out.Spec.Metrics) == 0 {
		out.Spec.Metrics = []autoscalingv2.MetricSpec{cpuUtilization(defaultCPUUtilization)}
	}
	if encoded, ok := annotations[behaviorAnnotation]; ok {
		var behavior annotatedBehavior
		if json.Unmarshal([]byte(encoded), &behavior) == nil && (behavior.ScaleUp != nil || behavior.ScaleDown != nil) {
			out.Spec.Behavior = behaviorFromAnnotation(&behavior)
		}
	}

	if in.Status.CurrentCPUUtilizationPercentage != nil {
		out.Status.CurrentMetrics = []autoscalingv2.MetricStatus{{
			Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU,
				Current: autoscalingv2.MetricValueStatus{AverageUtilization: in.Status.CurrentCPUUtilizationPercentage}},
		}}
	}
	if encoded, ok := annotations[currentMetricsAnnotation]; ok {
		// The annotation has more than currentCPUUtilizationPercentage: it replaces it.
		var current []autoscalingv1.MetricStatus
		if json.Unmarshal([]byte(encoded), &current) == nil {
			out.Status.CurrentMetrics = make([]autoscalingv2.MetricStatus, 0, len(current))
			for _, m := range current {
				out.Status.CurrentMetrics = append(out.Status.CurrentMetrics, metricStatusToV2(m))
			}
		}
	}
	if encoded, ok := annotations[conditionsAnnotation]; ok {
		var conditions []autoscalingv1.HorizontalPodAutoscalerCondition
		if json.Unmarshal([]byte(encoded), &conditions) == nil {
			out.Status.Conditions = make([]autoscalingv2.HorizontalPodAutoscalerCondition, 0, len(conditions))
			for _, c := range conditions {
				out.Status.Conditions = append(out.Status.Conditions, autoscalingv2.HorizontalPodAutoscalerCondition{
					Type: autoscalingv2.HorizontalPodAutoscalerConditionType(c.Type), Status: c.Status,
					LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message,
				})
			}
		}
	}
	return out, nil
}

// withoutRoundTripAnnotations returns a copy of annotations without those conversion writes.
func withoutRoundTripAnnotations(annotations map[string]string) map[string]string {
	if annotations == nil {
		return nil
	}
	out := make(map[string]string, len(annotations))
	for k, v := range annotations {
		switch k {
		case metricsAnnotation, currentMetricsAnnotation, conditionsAnnotation, behaviorAnnotation,
			scaleDownToleranceAnnotation, scaleUpToleranceAnnotation:
		default:
			out[k] = v
		}
	}
	return out
}

func isCPUUtilization(m autoscalingv2.MetricSpec) bool {
	return m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil &&
		m.Resource.Name == corev1.ResourceCPU && m.Resource.Target.AverageUtilization != nil
}

func cpuUtilization(percent int32) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU,
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &percent}},
	}
}

func metricSpecToV1(in autoscalingv2.MetricSpec) autoscalingv1.MetricSpec {
	out := autoscalingv1.MetricSpec{Type: autoscalingv1.MetricSourceType(in.Type)}
	if s := in.Object; s != nil {
		out.Object = &autoscalingv1.ObjectMetricSource{
			Target:     autoscalingv1.CrossVersionObjectReference(s.DescribedObject),
			MetricName: s.Metric.Name, Selector: s.Metric.Selector, AverageValue: s.Target.AverageValue,
		}
		if s.Target.Value != nil {
			out.Object.TargetValue = *s.Target.Value
		}
	}
	if s := in.Pods; s != nil {
		out.Pods = &autoscalingv1.PodsMetricSource{MetricName: s.Metric.Name, Selector: s.Metric.Selector}
		if s.Target.AverageValue != nil {
			out.Pods.TargetAverageValue = *s.Target.AverageValue
		}
	}
	if s := in.Resource; s != nil {
		out.Resource = &autoscalingv1.ResourceMetricSource{Name: s.Name,
			TargetAverageUtilization: s.Target.AverageUtilization, TargetAverageValue: s.Target.AverageValue}
	}
	if s := in.ContainerResource; s != nil {
		out.ContainerResource = &autoscalingv1.ContainerResourceMetricSource{Name: s.Name, Container: s.Container,
			TargetAverageUtilization: s.Target.AverageUtilization, TargetAverageValue: s.Target.AverageValue}
	}
	if s := in.External; s != nil {
		out.External = &autoscalingv1.ExternalMetricSource{MetricName: s.Metric.Name, MetricSelector: s.Metric.Selector,
			TargetValue: s.Target.Value, TargetAverageValue: s.Target.AverageValue}
	}
	return out
}

func metricSpecToV2(in autoscalingv1.MetricSpec) autoscalingv2.MetricSpec {
	out := autoscalingv2.MetricSpec{Type: autoscalingv2.MetricSourceType(in.Type)}
	if s := in.Object; s != nil {
		target := autoscalingv2.MetricTarget{Type: autoscalingv2.ValueMetricType, Value: &s.TargetValue}
		if s.AverageValue != nil {
			// v1 cannot leave targetValue out and writes "0": an average target keeps only a
			// value that says something.
			target = autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: s.AverageValue}
			if !s.TargetValue.IsZero() {
				target.Value = &s.TargetValue
			}
		}
		out.Object = &autoscalingv2.ObjectMetricSource{
			DescribedObject: autoscalingv2.CrossVersionObjectReference(s.Target),
			Metric:          autoscalingv2.MetricIdentifier{Name: s.MetricName, Selector: s.Selector},
			Target:          target,
		}
	}
	if s := in.Pods; s != nil {
		out.Pods = &autoscalingv2.PodsMetricSource{
			Metric: autoscalingv2.MetricIdentifier{Name: s.MetricName, Selector: s.Selector},
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &s.TargetAverageValue},
		}
	}
	if s := in.Resource; s != nil {
		out.Resource = &autoscalingv2.ResourceMetricSource{Name: s.Name, Target: resourceTarget(s.TargetAverageUtilization, s.TargetAverageValue)}
	}
	if s := in.ContainerResource; s != nil {
		out.ContainerResource = &autoscalingv2.ContainerResourceMetricSource{Name: s.Name, Container: s.Container,
			Target: resourceTarget(s.TargetAverageUtilization, s.TargetAverageValue)}
	}
	if s := in.External; s != nil {
		target := autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, Value: s.TargetValue, AverageValue: s.TargetAverageValue}
		if s.TargetValue != nil {
			target.Type = autoscalingv2.ValueMetricType
		}
		out.External = &autoscalingv2.ExternalMetricSource{
			Metric: autoscalingv2.MetricIdentifier{Name: s.MetricName, Selector: s.MetricSelector},
			Target: target,
		}
	}
	return out
}

func resourceTarget(utilization *int32, averageValue *resource.Quantity) autoscalingv2.MetricTarget {
	t := autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageUtilization: utilization, AverageValue: averageValue}
	if utilization != nil {
		t.Type = autoscalingv2.UtilizationMetricType
	}
	return t
}

func metricStatusToV1(in autoscalingv2.MetricStatus) autoscalingv1.MetricStatus {
	out := autoscalingv1.MetricStatus{Type: autoscalingv1.MetricSourceType(in.Type)}
	if s := in.Object; s != nil {
		out.Object = &autoscalingv1.ObjectMetricStatus{
			Target:     autoscalingv1.CrossVersionObjectReference(s.DescribedObject),
			MetricName: s.Metric.Name, Selector: s.Metric.Selector, AverageValue: s.Current.AverageValue,
		}
		if s.Current.Value != nil {
			out.Object.CurrentValue = *s.Current.Value
		}
	}
	if s := in.Pods; s != nil {
		out.Pods = &autoscalingv1.PodsMetricStatus{MetricName: s.Metric.Name, Selector: s.Metric.Selector}
		if s.Current.AverageValue != nil {
			out.Pods.CurrentAverageValue = *s.Current.AverageValue
		}
	}
	if s := in.Resource; s != nil {
		out.Resource = &autoscalingv1.ResourceMetricStatus{Name: s.Name, CurrentAverageUtilization: s.Current.AverageUtilization}
		if s.Current.AverageValue != nil {
			out.Resource.CurrentAverageValue = *s.Current.AverageValue
		}
	}
	if s := in.ContainerResource; s != nil {
		out.ContainerResource = &autoscalingv1.ContainerResourceMetricStatus{Name: s.Name, Container: s.Container,
			CurrentAverageUtilization: s.Current.AverageUtilization}
		if s.Current.AverageValue != nil {
			out.ContainerResource.CurrentAverageValue = *s.Current.AverageValue
		}
	}
	if s := in.External; s != nil {
		out.External = &autoscalingv1.ExternalMetricStatus{MetricName: s.Metric.Name, MetricSelector: s.Metric.Selector,
			CurrentAverageValue: s.Current.AverageValue}
		if s.Current.Value != nil {
			out.External.CurrentValue = *s.Current.Value
		}
	}
	return out
}

func metricStatusToV2(in autoscalingv1.MetricStatus) autoscalingv2.MetricStatus {
	out := autoscalingv2.MetricStatus{Type: autoscalingv2.MetricSourceType(in.Type)}
	if s := in.Object; s != nil {
		out.Object = &autoscalingv2.ObjectMetricStatus{
			DescribedObject: autoscalingv2.CrossVersionObjectReference(s.Target),
			Metric:          autoscalingv2.MetricIdentifier{Name: s.MetricName, Selector: s.Selector},
			Current:         autoscalingv2.MetricValueStatus{Value: &s.CurrentValue, AverageValue: s.AverageValue},
		}
	}
	if s := in.Pods; s != nil {
		out.Pods = &autoscalingv2.PodsMetricStatus{
			Metric:  autoscalingv2.MetricIdentifier{Name: s.MetricName, Selector: s.Selector},
			Current: autoscalingv2.MetricValueStatus{AverageValue: &s.CurrentAverageValue},
		}
	}
	if s := in.Resource; s != nil {
		out.Resource = &autoscalingv2.ResourceMetricStatus{Name: s.Name,
			Current: autoscalingv2.MetricValueStatus{AverageValue: &s.CurrentAverageValue, AverageUtilization: s.CurrentAverageUtilization}}
	}
	if s := in.ContainerResource; s != nil {
		out.ContainerResource = &autoscalingv2.ContainerResourceMetricStatus{Name: s.Name, Container: s.Container,
			Current: autoscalingv2.MetricValueStatus{AverageValue: &s.CurrentAverageValue, AverageUtilization: s.CurrentAverageUtilization}}
	}
	if s := in.External; s != nil {
		out.External = &autoscalingv2.ExternalMetricStatus{
			Metric:  autoscalingv2.MetricIdentifier{Name: s.MetricName, Selector: s.MetricSelector},
			Current: autoscalingv2.MetricValueStatus{Value: &s.CurrentValue, AverageValue: s.CurrentAverageValue},
		}
	}
	return out
}

func behaviorToAnnotation(in *autoscalingv2.HorizontalPodAutoscalerBehavior) *annotatedBehavior {
	rules := func(r *autoscalingv2.HPAScalingRules) *annotatedScalingRules {
		if r == nil {
			return nil
		}
		out := &annotatedScalingRules{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy, Tolerance: r.Tolerance}
		for _, p := range r.Policies {
			out.Policies = append(out.Policies, annotatedScalingPolicy(p))
		}
		return out
	}
	return &annotatedBehavior{ScaleUp: rules(in.ScaleUp), ScaleDown: rules(in.ScaleDown)}
}

func behaviorFromAnnotation(in *annotatedBehavior) *autoscalingv2.HorizontalPodAutoscalerBehavior {
	rules := func(r *annotatedScalingRules) *autoscalingv2.HPAScalingRules {
		if r == nil {
			return nil
		}
		out := &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: r.StabilizationWindowSeconds, SelectPolicy: r.SelectPolicy, Tolerance: r.Tolerance}
		for _, p := range r.Policies {
			out.Policies = append(out.Policies, autoscalingv2.HPAScalingPolicy(p))
		}
		return out
	}
	return &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: rules(in.ScaleUp), ScaleDown: rules(in.ScaleDown)}
}
