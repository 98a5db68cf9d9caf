{{/* The database connection: a URL without credentials, the password from a Secret through libpq's PGPASSWORD. */}}
{{- define "warden.databaseEnv" -}}
- name: WARDEN_DATABASE_URL
  value: {{ printf "postgresql+psycopg://%s@%s:%v/%s?sslmode=%s" .Values.database.user (include "warden.databaseHost" .) .Values.database.port .Values.database.name (ternary "disable" .Values.database.sslMode .Values.postgresql.bundled.enabled) | quote }}
- name: PGPASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "warden.databaseSecretName" . }}
      key: {{ ternary "password" .Values.database.passwordKey .Values.postgresql.bundled.enabled }}
{{- if .Values.database.caSecret }}
- name: PGSSLROOTCERT
  value: /etc/warden/database-ca/ca.crt
{{- end }}
{{- end -}}

{{- define "warden.serverEnv" -}}
{{ include "warden.databaseEnv" . }}
{{- if include "warden.redisEnabled" . }}
- name: WARDEN_REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "warden.redisSecretName" . }}
      key: {{ ternary "url" .Values.redis.urlKey .Values.redisBundled.enabled }}
{{- end }}
- name: WARDEN_SERVER_SECRET
  valueFrom:
    secretKeyRef:
      name: {{ include "warden.secretName" . }}
      key: {{ .Values.secrets.serverSecretKey }}
{{- if .Values.metrics.token }}
- name: WARDEN_METRICS_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "warden.secretName" . }}
      key: {{ .Values.secrets.metricsTokenKey }}
{{- end }}
- name: WARDEN_EXPORT_SIGNING_KEY
  value: /etc/warden/export/export-signing-key.pem
- name: WARDEN_DATA_DIR
  value: /var/lib/warden
- name: WARDEN_MODEL
  value: {{ .Values.model | quote }}
- name: WARDEN_ENGINE_DEVICE
  value: {{ .Values.engine.device | quote }}
- name: WARDEN_ENGINE_TENSOR_PARALLEL_SIZE
  value: {{ .Values.engine.tensorParallelSize | quote }}
- name: WARDEN_ENGINE_KV_CACHE_MEMORY_MB
  value: {{ .Values.engine.kvCacheMemoryMb | quote }}
- name: WARDEN_ENGINE_COMPILE_CACHE_DIR
  value: /var/lib/warden/compile-cache
- name: WARDEN_SHUTDOWN_GRACE_S
  value: {{ .Values.server.shutdown.graceSeconds | quote }}
- name: WARDEN_SHUTDOWN_UNREADY_S
  value: {{ .Values.server.shutdown.unreadySeconds | quote }}
- name: WARDEN_METRICS
  value: {{ .Values.metrics.enabled | quote }}
{{- if .Values.server.tls.existingSecret }}
- name: WARDEN_TLS_CERT
  value: /etc/warden/tls/tls.crt
- name: WARDEN_TLS_KEY
  value: /etc/warden/tls/tls.key
{{- end }}
{{- if .Values.admin.oidcIssuer }}
- name: WARDEN_ADMIN_OIDC_ISSUER
  value: {{ .Values.admin.oidcIssuer | quote }}
- name: WARDEN_ADMIN_OIDC_AUDIENCE
  value: {{ .Values.admin.oidcAudience | quote }}
{{- end }}
{{- if .Values.admin.jwksUrl }}
- name: WARDEN_ADMIN_JWKS_URL
  value: {{ .Values.admin.jwksUrl | quote }}
{{- end }}
{{- if .Values.tracing.enabled }}
- name: WARDEN_TRACING
  value: "true"
- name: WARDEN_OTLP_ENDPOINT
  value: {{ .Values.tracing.otlpEndpoint | quote }}
{{- end }}
- name: WARDEN_SERVICE_NAME
  value: {{ include "warden.fullname" . | quote }}
{{- range $name, $value := merge (dict) .Values.server.extraEnv .Values.engine.extraEnv }}
- name: {{ $name }}
  value: {{ $value | quote }}
{{- end }}
{{- end -}}
