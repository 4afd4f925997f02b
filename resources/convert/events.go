package convert

import (
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// coreEventToEvents renames the fields events.k8s.io/v1 calls otherwise; nothing is lost either way.
func coreEventToEvents(in *corev1.Event) (*eventsv1.Event, error) {
	out := &eventsv1.Event{
		TypeMeta:                 metav1.TypeMeta{APIVersion: "events.k8s.io/v1", Kind: "Event"},
		ObjectMeta:               in.ObjectMeta,
		EventTime:                in.EventTime,
		ReportingController:      in.ReportingController,
		ReportingInstance:        in.ReportingInstance,
		Action:                   in.Action,
		Reason:                   in.Reason,
		Regarding:                in.InvolvedObject,
		Related:                  in.Related,
		Note:                     in.Message,
		Type:                     in.Type,
		DeprecatedSource:         in.Source,
		DeprecatedFirstTimestamp: in.FirstTimestamp,
		DeprecatedLastTimestamp:  in.LastTimestamp,
		DeprecatedCount:          in.Count,
	}
	if in.Series != nil {
		out.Series = &eventsv1.EventSeries{Count: in.Series.Count, LastObservedTime: in.Series.LastObservedTime}
	}
	return out, nil
}

func eventsEventToCore(in *eventsv1.Event) (*corev1.Event, error) {
	out := &corev1.Event{
		TypeMeta:            metav1.TypeMeta{APIVersion: "v1", Kind: "Event"},
		ObjectMeta:          in.ObjectMeta,
		InvolvedObject:      in.Regarding,
		Reason:              in.Reason,
		Message:             in.Note,
		Source:              in.DeprecatedSource,
		FirstTimestamp:      in.DeprecatedFirstTimestamp,
		LastTimestamp:       in.DeprecatedLastTimestamp,
		Count:               in.DeprecatedCount,
		Type:                in.Type,
		EventTime:           in.EventTime,
		Action:              in.Action,
		Related:             in.Related,
		ReportingController: in.ReportingController,
		ReportingInstance:   in.ReportingInstance,
	}
	if in.Series != nil {
		out.Series = &corev1.EventSeries{Count: in.Series.Count, LastObservedTime: in.Series.LastObservedTime}
	}
	return out, nil
}
