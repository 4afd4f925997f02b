package auditlog

import "fmt"

// The objects of the log's events, as kube-apiserver logs them: a create's request without what
// the apiserver sets, an update's request as the writer read the object (its uid, resource
// version, managed fields and status), a RequestResponse level's response as stored. Their sizes
// are those of a real cluster's objects: about 3 KB for a Deployment, 4 KB for a Pod.

// deployment is a's Deployment: as created (stored false) or as stored and written back.
func (g *gen) deployment(b []byte, a *app, stored bool) []byte {
	b = fmt.Appendf(b, `{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":%q,"namespace":%q,`, a.name, a.ns)
	if stored {
		b = fmt.Appendf(b, `"uid":%q,"resourceVersion":"%d","generation":%d,"creationTimestamp":%q,`, a.depUID, a.depRV, a.generation, a.created)
	}
	b = fmt.Appendf(b, `"labels":{"app.kubernetes.io/name":%q,"app.kubernetes.io/part-of":%q,"app.kubernetes.io/managed-by":"argocd","team":%q},"annotations":{"argocd.argoproj.io/tracking-id":"%s:apps/Deployment:%s/%s"`,
		a.name, a.ns, a.ns, a.ns, a.ns, a.name)
	if stored {
		b = fmt.Appendf(b, `,"deployment.kubernetes.io/revision":"%d"},"managedFields":[{"manager":"argocd-controller","operation":"Apply","apiVersion":"apps/v1","time":%q,"fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{"f:argocd.argoproj.io/tracking-id":{}},"f:labels":{"f:app.kubernetes.io/managed-by":{},"f:app.kubernetes.io/name":{},"f:app.kubernetes.io/part-of":{},"f:team":{}}},"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app.kubernetes.io/name":{},"f:team":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:env":{},"f:image":{},"f:name":{},"f:ports":{},"f:readinessProbe":{},"f:resources":{}}},"f:serviceAccountName":{}}}}}},{"manager":"kube-controller-manager","operation":"Update","apiVersion":"apps/v1","time":%q,"fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{"f:deployment.kubernetes.io/revision":{}}},"f:status":{"f:availableReplicas":{},"f:conditions":{},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:updatedReplicas":{}}},"subresource":"status"}]`,
			a.revision, a.created, g.stamp())
	} else {
		b = append(b, '}')
	}
	b = fmt.Appendf(b, `},"spec":{"replicas":%d,"selector":{"matchLabels":{"app.kubernetes.io/name":%q}},"template":{"metadata":{"labels":{"app.kubernetes.io/name":%q,"team":%q},"annotations":{"kubectl.kubernetes.io/restartedAt":%q}},"spec":`,
		a.replicas, a.name, a.name, a.ns, a.restartedAt)
	b = g.podSpec(b, a, nil)
	b = append(b, `},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":"25%"}},"revisionHistoryLimit":10,"progressDeadlineSeconds":600}`...)
	if stored {
		b = fmt.Appendf(b, `,"status":{"observedGeneration":%d,"replicas":%d,"updatedReplicas":%d,"readyReplicas":%d,"availableReplicas":%d,"conditions":[{"type":"Available","status":"True","lastUpdateTime":%q,"lastTransitionTime":%q,"reason":"MinimumReplicasAvailable","message":"Deployment has minimum availability."},{"type":"Progressing","status":"True","lastUpdateTime":%q,"lastTransitionTime":%q,"reason":"NewReplicaSetAvailable","message":"ReplicaSet \"%s-%s\" has successfully progressed."}]}`,
			a.generation, a.replicas, a.replicas, a.replicas, a.replicas, a.created, a.created, g.stamp(), a.created, a.name, a.hash)
	}
	return append(b, '}')
}

// podSpec is the spec of a's Pods; of p's, with what the apiserver and the scheduler set, when p
// is given.
func (g *gen) podSpec(b []byte, a *app, p *pod) []byte {
	b = append(b, '{')
	if p != nil {
		b = fmt.Appendf(b, `"volumes":[{"name":"kube-api-access-%s","projected":{"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},{"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},{"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}],"defaultMode":420}}],`,
			p.uid[:5])
	}
	b = fmt.Appendf(b, `"containers":[{"name":"app","image":"registry.example.com/%s/%s:1.%d.0","ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}],"env":[{"name":"LOG_LEVEL","valueFrom":{"configMapKeyRef":{"name":"%s-config","key":"LOG_LEVEL"}}},{"name":"CONFIG_PATH","value":"/etc/app/config.yaml"},{"name":"POD_NAME","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}],"resources":{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{"memory":"256Mi"}},`,
		a.ns, a.name, a.version, a.name)
	if p != nil {
		b = fmt.Appendf(b, `"volumeMounts":[{"name":"kube-api-access-%s","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],`, p.uid[:5])
	}
	b = append(b, `"readinessProbe":{"httpGet":{"path":"/healthz","port":8080,"scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default"`...)
	if p != nil {
		b = append(b, `,"serviceAccount":"default"`...)
		if p.node != "" {
			b = fmt.Appendf(b, `,"nodeName":%q`, p.node)
		}
	}
	b = append(b, `,"securityContext":{},"schedulerName":"default-scheduler"`...)
	if p != nil {
		b = append(b, `,"tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"`...)
	}
	return append(b, '}')
}

// The forms of a Pod the log shows: the ReplicaSet controller's create request, the Pod it
// created (its response), and the Pod as its delete found it (its response).
const (
	podRequest = iota
	podCreated
	podDeleted
)

// pod is p in one of its forms.
func (g *gen) pod(b []byte, a *app, p *pod, form int) []byte {
	b = append(b, `{"kind":"Pod","apiVersion":"v1","metadata":{`...)
	if form != podRequest {
		b = fmt.Appendf(b, `"name":%q,`, p.name)
	}
	b = fmt.Appendf(b, `"generateName":"%s-%s-","namespace":%q,`, a.name, a.hash, a.ns)
	if form != podRequest {
		b = fmt.Appendf(b, `"uid":%q,"resourceVersion":"%d","creationTimestamp":%q,`, p.uid, p.rv, p.created)
	}
	if form == podDeleted {
		b = fmt.Appendf(b, `"deletionTimestamp":%q,"deletionGracePeriodSeconds":30,`, g.stamp())
	}
	b = fmt.Appendf(b, `"labels":{"app.kubernetes.io/name":%q,"pod-template-hash":%q,"team":%q},"annotations":{"kubectl.kubernetes.io/restartedAt":%q},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"%s-%s","uid":%q,"controller":true,"blockOwnerDeletion":true}]`,
		a.name, a.hash, a.ns, a.restartedAt, a.name, a.hash, a.rsUID)
	if form != podRequest {
		b = fmt.Appendf(b, `,"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":%q,"fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/restartedAt":{}},"f:generateName":{},"f:labels":{".":{},"f:app.kubernetes.io/name":{},"f:pod-template-hash":{},"f:team":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"%s\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:env":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{},"f:readinessProbe":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:serviceAccountName":{},"f:terminationGracePeriodSeconds":{}}}}]`,
			p.created, a.rsUID)
	}
	b = append(b, `},"spec":`...)
	switch form {
	case podRequest:
		b = g.podSpec(b, a, nil)
		b = append(b, `,"status":{}}`...)
	case podCreated:
		unscheduled := *p
		unscheduled.node = ""
		b = g.podSpec(b, a, &unscheduled)
		b = append(b, `,"status":{"phase":"Pending","qosClass":"Burstable"}}`...)
	default:
		b = g.podSpec(b, a, p)
		b = fmt.Appendf(b, `,"status":{"phase":"Running","hostIP":%q,"podIP":%q,"podIPs":[{"ip":%q}],"startTime":%q,"qosClass":"Burstable"}}`,
			nodeIP(p.node), p.ip, p.ip, p.created)
	}
	return b
}

// configMap is a's ConfigMap: as created (stored false) or as stored and written back.
func (g *gen) configMap(b []byte, a *app, stored bool) []byte {
	b = fmt.Appendf(b, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"%s-config","namespace":%q,`, a.name, a.ns)
	if stored {
		b = fmt.Appendf(b, `"uid":%q,"resourceVersion":"%d","creationTimestamp":%q,`, a.cmUID, a.cmRV, a.created)
	}
	b = fmt.Appendf(b, `"labels":{"app.kubernetes.io/name":%q,"app.kubernetes.io/managed-by":"argocd"},"annotations":{"argocd.argoproj.io/tracking-id":"%s:/ConfigMap:%s/%s-config","argocd.argoproj.io/sync-wave":"%d"}`,
		a.name, a.ns, a.ns, a.name, a.syncWave)
	if stored {
		b = fmt.Appendf(b, `,"managedFields":[{"manager":"argocd-controller","operation":"Apply","apiVersion":"v1","time":%q,"fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:LOG_LEVEL":{},"f:config.yaml":{}},"f:metadata":{"f:annotations":{"f:argocd.argoproj.io/sync-wave":{},"f:argocd.argoproj.io/tracking-id":{}},"f:labels":{"f:app.kubernetes.io/managed-by":{},"f:app.kubernetes.io/name":{}}}}}]`, g.stamp())
	}
	return fmt.Appendf(b, `},"data":{"LOG_LEVEL":%q,"config.yaml":"server:\n  port: 8080\n  readTimeout: 5s\n  writeTimeout: 10s\ndatabase:\n  host: %s-db.%s.svc.cluster.local\n  port: 5432\n  pool: {min: 2, max: 20}\ncache:\n  ttl: 300s\n  size: 10000\nfeatures:\n  newCheckout: %t\n  betaSearch: false\n  syncWave: %d\n"}}`,
		a.logLevel, a.name, a.ns, a.syncWave%2 == 0, a.syncWave)
}

// service is a's Service: as created (stored false) or as stored and written back.
func (g *gen) service(b []byte, a *app, stored bool) []byte {
	b = fmt.Appendf(b, `{"kind":"Service","apiVersion":"v1","metadata":{"name":%q,"namespace":%q,`, a.name, a.ns)
	if stored {
		b = fmt.Appendf(b, `"uid":%q,"resourceVersion":"%d","creationTimestamp":%q,`, a.svcUID, a.svcRV, a.created)
	}
	b = fmt.Appendf(b, `"labels":{"app.kubernetes.io/name":%q,"app.kubernetes.io/managed-by":"argocd"},"annotations":{"argocd.argoproj.io/tracking-id":"%s:/Service:%s/%s","argocd.argoproj.io/sync-wave":"%d","prometheus.io/scrape":"true","prometheus.io/port":"8080"}`,
		a.name, a.ns, a.ns, a.name, a.syncWave)
	if stored {
		b = fmt.Appendf(b, `,"managedFields":[{"manager":"argocd-controller","operation":"Apply","apiVersion":"v1","time":%q,"fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{"f:argocd.argoproj.io/sync-wave":{},"f:argocd.argoproj.io/tracking-id":{},"f:prometheus.io/port":{},"f:prometheus.io/scrape":{}},"f:labels":{"f:app.kubernetes.io/managed-by":{},"f:app.kubernetes.io/name":{}}},"f:spec":{"f:ports":{"k:{\"port\":80,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:targetPort":{}}},"f:selector":{}}}}]`, a.created)
	}
	b = fmt.Appendf(b, `},"spec":{"ports":[{"name":"http","protocol":"TCP","port":80,"targetPort":8080}],"selector":{"app.kubernetes.io/name":%q}`, a.name)
	if stored {
		b = fmt.Appendf(b, `,"clusterIP":"10.96.%d.%d","clusterIPs":["10.96.%d.%d"],"type":"ClusterIP","sessionAffinity":"None","ipFamilies":["IPv4"],"ipFamilyPolicy":"SingleStack","internalTrafficPolicy":"Cluster"`,
			a.index/250, 1+a.index%250, a.index/250, 1+a.index%250)
	} else {
		b = append(b, `,"type":"ClusterIP"`...)
	}
	b = append(b, '}')
	if stored {
		b = append(b, `,"status":{"loadBalancer":{}}`...)
	}
	return append(b, '}')
}
