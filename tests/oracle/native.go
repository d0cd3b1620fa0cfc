package main

// The "native" operation: a built-in object (a Deployment, a Pod, a Service...) created as the API
// server creates it, through the kubernetes module's own scheme and registry strategies. The body is
// decoded for its apiVersion with strict field validation, defaulted, converted to the internal
// version and then prepared and validated by the kind's strategy, with the common ObjectMeta checks
// and declarative validation, as the generic registry's create runs them.

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer/json"
	genericrequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"sigs.k8s.io/yaml"

	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	"k8s.io/kubernetes/pkg/capabilities"

	// Every built-in group, registered in the legacy scheme (types, defaults, conversions).
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/certificates/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/events/install"
	_ "k8s.io/kubernetes/pkg/apis/flowcontrol/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/node/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"

	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/apps/controllerrevision"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/autoscaling/horizontalpodautoscaler"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	"k8s.io/kubernetes/pkg/registry/coordination/lease"
	"k8s.io/kubernetes/pkg/registry/core/configmap"
	"k8s.io/kubernetes/pkg/registry/core/endpoint"
	"k8s.io/kubernetes/pkg/registry/core/limitrange"
	"k8s.io/kubernetes/pkg/registry/core/namespace"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolume"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/podtemplate"
	"k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	"k8s.io/kubernetes/pkg/registry/core/resourcequota"
	"k8s.io/kubernetes/pkg/registry/core/secret"
	"k8s.io/kubernetes/pkg/registry/core/service"
	"k8s.io/kubernetes/pkg/registry/core/serviceaccount"
	"k8s.io/kubernetes/pkg/registry/discovery/endpointslice"
	"k8s.io/kubernetes/pkg/registry/flowcontrol/flowschema"
	"k8s.io/kubernetes/pkg/registry/flowcontrol/prioritylevelconfiguration"
	"k8s.io/kubernetes/pkg/registry/networking/ingress"
	"k8s.io/kubernetes/pkg/registry/networking/ingressclass"
	"k8s.io/kubernetes/pkg/registry/networking/networkpolicy"
	"k8s.io/kubernetes/pkg/registry/node/runtimeclass"
	"k8s.io/kubernetes/pkg/registry/policy/poddisruptionbudget"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrole"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrolebinding"
	"k8s.io/kubernetes/pkg/registry/rbac/role"
	"k8s.io/kubernetes/pkg/registry/rbac/rolebinding"
	"k8s.io/kubernetes/pkg/registry/scheduling/priorityclass"
	"k8s.io/kubernetes/pkg/registry/storage/csidriver"
	"k8s.io/kubernetes/pkg/registry/storage/storageclass"
	"k8s.io/kubernetes/pkg/registry/storage/volumeattachment"
)

// builtin is one kind the oracle creates: its strategy and its resource (the request's path).
type builtin struct {
	strategy rest.RESTCreateStrategy
	resource string
}

// builtins are the kinds the "native" operation serves, by group and kind.
var builtins = map[schema.GroupKind]builtin{
	{Group: "", Kind: "ConfigMap"}:                                                  {configmap.Strategy, "configmaps"},
	{Group: "", Kind: "Endpoints"}:                                                  {endpoint.Strategy, "endpoints"},
	{Group: "", Kind: "LimitRange"}:                                                 {limitrange.Strategy, "limitranges"},
	{Group: "", Kind: "Namespace"}:                                                  {namespace.Strategy, "namespaces"},
	{Group: "", Kind: "PersistentVolume"}:                                           {persistentvolume.Strategy, "persistentvolumes"},
	{Group: "", Kind: "PersistentVolumeClaim"}:                                      {persistentvolumeclaim.Strategy, "persistentvolumeclaims"},
	{Group: "", Kind: "Pod"}:                                                        {pod.Strategy, "pods"},
	{Group: "", Kind: "PodTemplate"}:                                                {podtemplate.Strategy, "podtemplates"},
	{Group: "", Kind: "ReplicationController"}:                                      {replicationcontroller.Strategy, "replicationcontrollers"},
	{Group: "", Kind: "ResourceQuota"}:                                              {resourcequota.Strategy, "resourcequotas"},
	{Group: "", Kind: "Secret"}:                                                     {secret.Strategy, "secrets"},
	{Group: "", Kind: "Service"}:                                                    {service.Strategy, "services"},
	{Group: "", Kind: "ServiceAccount"}:                                             {serviceaccount.Strategy, "serviceaccounts"},
	{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}:   {mutatingwebhookconfiguration.Strategy, "mutatingwebhookconfigurations"},
	{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}: {validatingwebhookconfiguration.Strategy, "validatingwebhookconfigurations"},
	{Group: "apps", Kind: "ControllerRevision"}:                                     {controllerrevision.Strategy, "controllerrevisions"},
	{Group: "apps", Kind: "DaemonSet"}:                                              {daemonset.Strategy, "daemonsets"},
	{Group: "apps", Kind: "Deployment"}:                                             {deployment.Strategy, "deployments"},
	{Group: "apps", Kind: "ReplicaSet"}:                                             {replicaset.Strategy, "replicasets"},
	{Group: "apps", Kind: "StatefulSet"}:                                            {statefulset.Strategy, "statefulsets"},
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}:                         {horizontalpodautoscaler.Strategy, "horizontalpodautoscalers"},
	{Group: "batch", Kind: "CronJob"}:                                               {cronjob.Strategy, "cronjobs"},
	{Group: "batch", Kind: "Job"}:                                                   {job.Strategy, "jobs"},
	{Group: "coordination.k8s.io", Kind: "Lease"}:                                   {lease.Strategy, "leases"},
	{Group: "discovery.k8s.io", Kind: "EndpointSlice"}:                              {endpointslice.Strategy, "endpointslices"},
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "FlowSchema"}:                     {flowschema.Strategy, "flowschemas"},
	{Group: "flowcontrol.apiserver.k8s.io", Kind: "PriorityLevelConfiguration"}:     {prioritylevelconfiguration.Strategy, "prioritylevelconfigurations"},
	{Group: "networking.k8s.io", Kind: "Ingress"}:                                   {ingress.Strategy, "ingresses"},
	{Group: "networking.k8s.io", Kind: "IngressClass"}:                              {ingressclass.Strategy, "ingressclasses"},
	{Group: "networking.k8s.io", Kind: "NetworkPolicy"}:                             {networkpolicy.Strategy, "networkpolicies"},
	{Group: "node.k8s.io", Kind: "RuntimeClass"}:                                    {runtimeclass.Strategy, "runtimeclasses"},
	{Group: "policy", Kind: "PodDisruptionBudget"}:                                  {poddisruptionbudget.Strategy, "poddisruptionbudgets"},
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:                       {clusterrole.Strategy, "clusterroles"},
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}:                {clusterrolebinding.Strategy, "clusterrolebindings"},
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:                              {role.Strategy, "roles"},
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:                       {rolebinding.Strategy, "rolebindings"},
	{Group: "scheduling.k8s.io", Kind: "PriorityClass"}:                             {priorityclass.Strategy, "priorityclasses"},
	{Group: "storage.k8s.io", Kind: "CSIDriver"}:                                    {csidriver.Strategy, "csidrivers"},
	{Group: "storage.k8s.io", Kind: "StorageClass"}:                                 {storageclass.Strategy, "storageclasses"},
	{Group: "storage.k8s.io", Kind: "VolumeAttachment"}:                             {volumeattachment.Strategy, "volumeattachments"},
}

func init() {
	// Privileged containers are allowed, as kubeadm, kind and the managed offerings start the API
	// server (--allow-privileged=true); the flag's own default refuses them.
	capabilities.Initialize(capabilities.Capabilities{AllowPrivileged: true})
}

// validateBuiltin answers a "native" request: the create of the built-in object req.Object.
func validateBuiltin(req request) answer {
	body, err := yaml.YAMLToJSON([]byte(req.Object))
	if err != nil {
		return rejected(err.Error())
	}
	var typeMeta metav1.TypeMeta
	if err := yaml.Unmarshal(body, &typeMeta); err != nil {
		return rejected(err.Error())
	}
	gvk := typeMeta.GroupVersionKind()
	kind, ok := builtins[gvk.GroupKind()]
	if !ok {
		return answer{Oracle: fmt.Sprintf("the oracle does not serve %v", gvk.GroupKind())}
	}
	if !legacyscheme.Scheme.Recognizes(gvk) {
		return answer{Oracle: fmt.Sprintf("the scheme does not serve %v", gvk)}
	}
	if strings.Contains(gvk.Version, "alpha") || strings.Contains(gvk.Version, "beta") {
		// The scheme still knows removed versions (apps/v1beta1) for clients, but the API server serves
		// only what its default resource configuration enables (DefaultAPIResourceConfigSource in
		// pkg/controlplane): at this release, stable versions alone. kubectl's discovery finds no
		// resource for the rest and stops before any request.
		return rejected(fmt.Sprintf("no matches for kind %q in version %q", gvk.Kind, gvk.GroupVersion().String()))
	}
	// The handler's decoder: the versioned kind, strict field validation, defaults, the internal version.
	serializer := json.NewSerializerWithOptions(json.DefaultMetaFactory, legacyscheme.Scheme, legacyscheme.Scheme, json.SerializerOptions{Strict: true})
	versioned, _, err := serializer.Decode(body, &gvk, nil)
	var strict []string
	if err != nil {
		strictErr, isStrict := runtime.AsStrictDecodingError(err)
		if !isStrict || versioned == nil {
			return rejected(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, gvk.Kind, err))
		}
		for _, e := range strictErr.Errors() {
			strict = append(strict, e.Error())
		}
	}
	legacyscheme.Scheme.Default(versioned)
	internal, err := legacyscheme.Scheme.ConvertToVersion(versioned, schema.GroupVersion{Group: gvk.Group, Version: runtime.APIVersionInternal})
	if err != nil {
		return rejected(err.Error())
	}
	objectMeta, err := meta.Accessor(internal)
	if err != nil {
		return answer{Oracle: err.Error()}
	}
	namespace := ""
	if kind.strategy.NamespaceScoped() {
		namespace = objectMeta.GetNamespace()
		if namespace == "" {
			namespace = "default"
		}
	}
	ctx := genericrequest.WithNamespace(context.Background(), namespace)
	ctx = genericrequest.WithRequestInfo(ctx, &genericrequest.RequestInfo{
		IsResourceRequest: true, Verb: "create", APIGroup: gvk.Group, APIVersion: gvk.Version,
		Namespace: namespace, Resource: kind.resource, Name: objectMeta.GetName(),
	})
	if objectMeta.GetName() == "" && objectMeta.GetGenerateName() != "" {
		objectMeta.SetName(generatedName(objectMeta.GetGenerateName()))
	}
	rest.FillObjectMetaSystemFields(objectMeta)
	if err := rest.EnsureObjectNamespaceMatchesRequestNamespace(rest.ExpectedNamespaceForScope(namespace, kind.strategy.NamespaceScoped()), objectMeta); err != nil {
		return rejected(err.Error())
	}
	if svc, ok := internal.(*api.Service); ok && svc.Spec.ClusterIP != "" && len(svc.Spec.ClusterIPs) == 0 {
		// The Service REST storage's create fills the plural field from the singular one before
		// validation (an old client writes only clusterIP).
		svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
	}
	kind.strategy.PrepareForCreate(ctx, internal)
	errs := rest.ValidateCreate(ctx, internal, kind.strategy)
	var warnings []string
	if len(errs) == 0 {
		warnings = kind.strategy.WarningsOnCreate(ctx, internal)
	}
	return fieldErrorAnswer(errs, nil, strict, warnings)
}
