{{/* Names and labels. */}}
{{- define "warden.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "warden.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains (include "warden.name" .) .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name (include "warden.name" .) | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "warden.selectorLabels" -}}
app.kubernetes.io/name: {{ include "warden.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: server
{{- end -}}

{{- define "warden.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "warden.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "warden.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "warden.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "warden.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The Secret holding the server secret, export key and metrics token: the operator's or the generated one. */}}
{{- define "warden.secretName" -}}
{{- default (printf "%s-secrets" (include "warden.fullname" .)) .Values.secrets.existingSecret -}}
{{- end -}}

{{- define "warden.databaseSecretName" -}}
{{- if .Values.postgresql.bundled.enabled -}}
{{- printf "%s-postgresql" (include "warden.fullname" .) -}}
{{- else -}}
{{- .Values.database.existingSecret -}}
{{- end -}}
{{- end -}}

{{- define "warden.databaseHost" -}}
{{- if .Values.postgresql.bundled.enabled -}}
{{- printf "%s-postgresql" (include "warden.fullname" .) -}}
{{- else -}}
{{- .Values.database.host -}}
{{- end -}}
{{- end -}}

{{- define "warden.redisSecretName" -}}
{{- if .Values.redisBundled.enabled -}}
{{- printf "%s-redis" (include "warden.fullname" .) -}}
{{- else -}}
{{- .Values.redis.existingSecret -}}
{{- end -}}
{{- end -}}

{{- define "warden.redisEnabled" -}}
{{- if or .Values.redisBundled.enabled .Values.redis.existingSecret -}}true{{- end -}}
{{- end -}}

{{- define "warden.autoscaling" -}}
{{- if or .Values.autoscaling.keda.enabled .Values.autoscaling.hpa.enabled -}}true{{- end -}}
{{- end -}}

{{- define "warden.scheme" -}}
{{- if .Values.server.tls.enabled -}}HTTPS{{- else -}}HTTP{{- end -}}
{{- end -}}

{{/*
Seconds Kubernetes must wait after it starts terminating a pod: the preStop pause, then Warden's drain
(WARDEN_SHUTDOWN_GRACE_S, rounded up), then uvicorn's wait past the cut (gateway.cli SHUTDOWN_CUT_MARGIN_S = 5) so
the cut calls' audit records are written, then 5 s to flush and exit.
*/}}
{{- define "warden.minTerminationGraceSeconds" -}}
{{- $s := .Values.server.shutdown -}}
{{- add (int $s.preStopSeconds) (int (ceil (float64 $s.graceSeconds))) 5 5 -}}
{{- end -}}

{{- define "warden.terminationGraceSeconds" -}}
{{- $min := int (include "warden.minTerminationGraceSeconds" .) -}}
{{- $set := int .Values.server.shutdown.terminationGracePeriodSeconds -}}
{{- if eq $set 0 -}}{{ $min }}{{- else -}}{{ $set }}{{- end -}}
{{- end -}}

{{/* Every inconsistency the chart can see fails the render instead of misbehaving in the cluster. */}}
{{- define "warden.validate" -}}
{{- $s := .Values.server.shutdown -}}
{{- $min := int (include "warden.minTerminationGraceSeconds" .) -}}
{{- $set := int $s.terminationGracePeriodSeconds -}}
{{- if and (ne $set 0) (lt $set $min) -}}
{{- fail (printf "server.shutdown.terminationGracePeriodSeconds=%d is shorter than preStopSeconds (%v) + graceSeconds (%v, WARDEN_SHUTDOWN_GRACE_S) + 10 s of cut margin and exit = %d: Kubernetes would SIGKILL pods mid-drain" $set $s.preStopSeconds $s.graceSeconds $min) -}}
{{- end -}}
{{- if gt (float64 $s.unreadySeconds) (float64 $s.graceSeconds) -}}
{{- fail (printf "server.shutdown.unreadySeconds (%v, WARDEN_SHUTDOWN_UNREADY_S) exceeds graceSeconds (%v, WARDEN_SHUTDOWN_GRACE_S): the drain would end before the pod stops accepting" $s.unreadySeconds $s.graceSeconds) -}}
{{- end -}}
{{- if and (not (include "warden.redisEnabled" .)) (or (gt (int .Values.replicaCount) 1) (include "warden.autoscaling" .)) -}}
{{- fail "replicaCount > 1 or autoscaling needs Redis (redis.existingSecret or redisBundled.enabled): each pod's in-process rate limiter would grant every limit once per pod" -}}
{{- end -}}
{{- if and .Values.autoscaling.keda.enabled .Values.autoscaling.hpa.enabled -}}
{{- fail "autoscaling.keda and autoscaling.hpa are alternatives: enable one (KEDA creates its own HPA)" -}}
{{- end -}}
{{- if and (not .Values.postgresql.bundled.enabled) (not .Values.database.host) -}}
{{- fail "database.host is required (or postgresql.bundled.enabled for a trial)" -}}
{{- end -}}
{{- if and (not .Values.postgresql.bundled.enabled) (not .Values.database.existingSecret) -}}
{{- fail "database.existingSecret is required: the database password comes only from a Secret" -}}
{{- end -}}
{{- if and .Values.postgresql.bundled.enabled .Values.database.host -}}
{{- fail "database.host and postgresql.bundled.enabled are alternatives" -}}
{{- end -}}
{{- if and .Values.redisBundled.enabled .Values.redis.existingSecret -}}
{{- fail "redis.existingSecret and redisBundled.enabled are alternatives" -}}
{{- end -}}
{{- if and .Values.inferencePool.enabled .Values.server.tls.enabled -}}
{{- fail "inferencePool.enabled needs server.tls.enabled=false: an InferencePool's target port speaks cleartext (its appProtocol is http or kubernetes.io/h2c), so the inference gateway terminates TLS and would send plain HTTP to an HTTPS port" -}}
{{- end -}}
{{- if and .Values.inferencePool.enabled .Values.metrics.token -}}
{{- fail "inferencePool.enabled needs metrics.token=false: the endpoint picker scrapes each pod's /metrics without credentials, and would pick blind; keep /metrics to the picker and Prometheus with networkPolicy.ingressFrom instead" -}}
{{- end -}}
{{- if and .Values.engine.device (not (has .Values.engine.device (list "cpu" "cuda"))) -}}
{{- fail "engine.device must be cpu or cuda" -}}
{{- end -}}
{{- range $name, $_ := merge (dict) .Values.server.extraEnv .Values.engine.extraEnv -}}
{{- if regexMatch "(?i)(SECRET|PASSWORD|TOKEN|PEPPER|_KEY$|_URL$)" $name -}}
{{- fail (printf "%s may carry a credential: it cannot be a plain value in extraEnv; set it through the chart's Secret-backed values" $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
