"""The ``warden`` command line: serve, db, tenant, key, policy, audit, generate."""

from __future__ import annotations

import argparse
import errno
import json
import math
import os
import socket
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

# Only light modules at the top: `warden serve` starts the engine process before it imports the database layer, the
# migrations and the app, so the engine loads its model while the gateway sets itself up.
from gateway.core.secrets import load_server_secrets
from gateway.core.settings import Settings, settings_error_message

if TYPE_CHECKING:
    import uvicorn

    from gateway.replicas.hosts import EngineHosts
    from gateway.replicas.launch import DetachedEngine


SHUTDOWN_CUT_MARGIN_S = 5


def _fail(message: str) -> int:
    print(f"warden: {message}", file=sys.stderr)
    return 1


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    if args.workers > 1 and not settings.redis_url:
        # The in-process limiter counts per process: N workers would each grant the whole allowance.
        return _fail(f"--workers {args.workers} needs a shared rate limiter: set WARDEN_REDIS_URL (each worker's "
                     "in-process limits would otherwise be enforced N times over), or run one worker")
    early = _spawns_engine_early(args, settings)
    if early:
        from engine.errors import EngineError
        from gateway.replicas.launch import discard_early, spawn_early

        try:
            spawn_early(settings.engine_config(), _detached_engine(settings))
        except (EngineError, ValueError, PermissionError) as exc:
            return _fail(f"the engine could not start: {exc}")
    try:
        return _serve(args, settings)
    finally:
        if early:
            discard_early()  # a no-op once the app's pool attached to it (it shuts its engine down itself)


def _spawns_engine_early(args: argparse.Namespace, settings: Settings) -> bool:
    """Whether ``warden serve`` starts the engine process before the gateway's own start-up: the deployment of one
    worker that runs one engine in its own process (the app's pool attaches to it). Several workers share engine
    hosts started below; an in-process engine loads inside the app."""
    return (args.workers == 1 and not settings.engine_in_process and not settings.engine_sockets
            and settings.engine.replicas == 1)


def _detached_engine(settings: Settings) -> DetachedEngine | None:
    """Where the one-worker gateway's engine lives as a detached host (``WARDEN_ENGINE_ORPHAN_S`` > 0), in the data
    directory's ``run`` directory, which only this user may enter: the socket there is the deployment's own."""
    from gateway.replicas.launch import DetachedEngine

    if settings.engine_orphan_s <= 0:
        return None
    return DetachedEngine(_run_dir(settings) / "engine.sock", load_server_secrets(settings).engine_authkey,
                          settings.engine_orphan_s)


def _run_dir(settings: Settings) -> Path:
    """The data directory's ``run`` directory, where the engine sockets live, resolved; created 0700, and refused
    unless it is this user's alone (so a socket there is the deployment's own)."""
    run = settings.data_dir / "run"
    run.mkdir(mode=0o700, parents=True, exist_ok=True)
    status = run.stat()
    if status.st_uid != os.geteuid() or status.st_mode & 0o077:
        raise PermissionError(f"{run} must be this user's alone (mode 0700): the engine socket lives there")
    return run.resolve()


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    from gateway.core.migrate import upgrade_database
    from gateway.core.tls import ensure_certificate

    if args.migrate:
        with _phase("migrations"):
            upgrade_database(settings.database_url)
    load_server_secrets(settings)  # created once here, before any worker starts
    tls: dict[str, str] = {}
    scheme = "http"
    if not args.http:
        cert, key = ensure_certificate(settings.data_dir, settings.tls_cert, settings.tls_key)
        tls = {"ssl_certfile": str(cert), "ssl_keyfile": str(key)}
        scheme = "https"
    hosts = None
    if args.workers > 1:
        from gateway.telemetry import prepare_multiprocess_dir

        # One fresh Prometheus multiprocess directory shared by all workers, so a scrape of any worker sees all.
        prepare_multiprocess_dir(settings.data_dir / "prometheus")
        if not settings.engine_in_process:
            from engine.errors import EngineError

            try:
                hosts = _start_engine_hosts(settings)
            except (EngineError, ValueError, PermissionError) as exc:
                return _fail(f"the engine could not start: {exc}")
    print(f"warden: starting the gateway for {scheme}://{args.host}:{args.port}/v1 ({args.workers} worker(s)); the "
          "engine loads meanwhile", file=sys.stderr)
    try:
        _run_server(args, settings, tls, scheme)
    finally:
        if hosts is not None:
            hosts.stop()
    return 0


@contextmanager
def _phase(name: str) -> Iterator[None]:
    """One start-up line for a phase of the gateway's own start, with its time (the engine prints its phases in the
    same form: ``engine.core.startup``)."""
    started = time.perf_counter()
    yield
    print(f"warden: {name}: done in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)


def _run_server(args: argparse.Namespace, settings: Settings, tls: dict[str, str], scheme: str) -> None:
    """uvicorn, serving the app; with one worker, through a server that prints the address it actually bound (the
    port the OS picked for ``--port 0``) once the app is ready, and the whole start's time."""
    import uvicorn

    options = {"factory": True, "host": args.host, "port": args.port, "workers": args.workers,
               "log_level": args.log_level, "timeout_graceful_shutdown": _server_grace_s(settings), **tls}
    if args.workers > 1:  # uvicorn's supervisor binds the socket and logs its address itself
        _wait_for_port(args.host, args.port, _server_grace_s(settings) + settings.shutdown_unready_s)
        uvicorn.run("gateway.app:app_from_env", **options)
        return
    server = _announcing_server(uvicorn.Config("gateway.app:app_from_env", **options), scheme)
    with suppress(KeyboardInterrupt):  # Ctrl-C ends the server; uvicorn.run swallows it the same way
        server.run()
    if not server.started:  # as uvicorn.run: the app's start-up failed (its error is logged)
        sys.exit(STARTUP_FAILURE)


STARTUP_FAILURE = 3  # uvicorn's exit status for a server whose start-up failed
PORT_POLL_S = 0.5


def _wait_for_port(host: str, port: int, wait_s: float) -> None:
    """Wait up to ``wait_s`` for ``host:port`` to be free to listen on. The workers of a ``warden serve`` whose main
    process was killed alone hold its socket until they have drained and stopped (``gateway.parent_watch``), which
    takes at most the shutdown grace period; a restart meanwhile waits for them instead of failing to bind. Past the
    wait, uvicorn's own bind reports the error."""
    if port == 0:
        return
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    deadline = time.monotonic() + wait_s
    announced = False
    while True:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
            try:
                probe.bind((host, port))
                return
            except OSError as exc:
                if exc.errno != errno.EADDRINUSE or time.monotonic() >= deadline:
                    return
        if not announced:
            print(f"warden: {host}:{port} is in use; waiting up to {wait_s:.0f} s for it (the workers of a `warden "
                  "serve` that was killed drain first)", file=sys.stderr, flush=True)
            announced = True
        time.sleep(PORT_POLL_S)


def _announcing_server(config: uvicorn.Config, scheme: str) -> uvicorn.Server:
    import uvicorn

    class AnnouncingServer(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started and self.servers and self.servers[0].sockets:
                host, port = self.servers[0].sockets[0].getsockname()[:2]
                address = f"[{host}]" if ":" in host else host
                print(f"warden: ready: serving {scheme}://{address}:{port}/v1 ({_since_start():.1f} s after "
                      "`warden serve` started)", file=sys.stderr, flush=True)

    return AnnouncingServer(config)


def _since_start() -> float:
    return time.monotonic() - _STARTED


_STARTED = time.monotonic()  # the CLI's import: the start of `warden serve`, give or take the interpreter's start


def _server_grace_s(settings: Settings) -> int:
    """uvicorn's own wait for open connections after it stops accepting. The app cuts the calls still open at
    ``shutdown_grace_s`` after the signal (gateway.lifecycle) and audits them; uvicorn, whose wait starts later,
    must not cancel them first, so it waits longer, by the margin those records need."""
    return math.ceil(settings.shutdown_grace_s) + SHUTDOWN_CUT_MARGIN_S


def _start_engine_hosts(settings: Settings) -> EngineHosts:
    """The engines the workers share (one host per replica), started before them (or, detached, left serving by a
    crashed ``warden serve``); the workers find the sockets in ``WARDEN_ENGINE_SOCKETS``, which they inherit."""
    from gateway.replicas.hosts import EngineHosts

    config = settings.engine_config()
    print(f"warden: starting {settings.engine.replicas} engine host(s) for the workers", file=sys.stderr)
    hosts = EngineHosts.start(config, settings.engine.replicas, _run_dir(settings),
                              load_server_secrets(settings).engine_authkey, orphan_s=settings.engine_orphan_s)
    os.environ["WARDEN_ENGINE_SOCKETS"] = json.dumps([str(s) for s in hosts.sockets])
    return hosts


def cmd_db_upgrade(args: argparse.Namespace, settings: Settings) -> int:
    from gateway.core.migrate import DatabaseUnreachable, upgrade_database

    try:
        upgrade_database(settings.database_url, wait_s=args.wait_s)
    except DatabaseUnreachable as exc:
        return _fail(str(exc))
    print("database is at the latest schema revision")
    return 0


def cmd_tenant_create(args: argparse.Namespace, settings: Settings) -> int:
    from gateway.core.db import Database
    from gateway.tenants.service import TenantError, create_tenant

    db = Database(settings.database_url)
    try:
        with db.transaction() as session:
            tenant = create_tenant(args.name, session=session)
            print(f"{tenant.id}\t{tenant.name}")
    except TenantError as exc:
        return _fail(str(exc))
    return 0


def cmd_tenant_list(_args: argparse.Namespace, settings: Settings) -> int:
    from gateway.core.db import Database
    from gateway.tenants.service import list_tenants

    with Database(settings.database_url).session() as session:
        for tenant in list_tenants(session=session):
            print(f"{tenant.id}\t{tenant.name}\t{tenant.created_at.isoformat()}")
    return 0


def cmd_key_issue(args: argparse.Namespace, settings: Settings) -> int:
    from gateway.core.clock import utcnow
    from gateway.core.db import Database
    from gateway.keys.service import issue_key
    from gateway.tenants.service import find_tenant

    secrets = load_server_secrets(settings)
    expires = utcnow() + timedelta(days=args.expires_days) if args.expires_days else None
    with Database(settings.database_url).transaction() as session:
        tenant = find_tenant(args.tenant, session=session)
        if tenant is None:
            return _fail(f"no tenant {args.tenant!r}")
        issued = issue_key(tenant, pepper=secrets.key_pepper, session=session, label=args.label, expires_at=expires)
    print(f"key id: {issued.key_id}  (tenant {tenant.name}); the key is shown once and never stored:", file=sys.stderr)
    print(issued.api_key)
    return 0


def cmd_key_revoke(args: argparse.Namespace, settings: Settings) -> int:
    from gateway.core.db import Database
    from gateway.keys.service import revoke_key

    with Database(settings.database_url).transaction() as session:
        if not revoke_key(args.key_id, session=session):
            return _fail(f"no active key {args.key_id!r}")
    print(f"revoked {args.key_id} (every replica stops accepting it within {settings.key_cache_ttl_s:g}s)")
    return 0


def cmd_policy_set(args: argparse.Namespace, settings: Settings) -> int:
    from gateway.core.db import Database
    from gateway.policystore.service import publish_policy
    from gateway.tenants.service import find_tenant

    document = json.loads(Path(args.file).read_text())
    with Database(settings.database_url).transaction() as session:
        tenant = find_tenant(args.tenant, session=session)
        if tenant is None:
            return _fail(f"no tenant {args.tenant!r}")
        try:
            row = publish_policy(tenant.id, document, session=session)
        except ValidationError as exc:
            return _fail(f"invalid policy: {exc}")
        print(f"tenant {tenant.name}: policy version {row.version} is active")
    return 0


def cmd_audit_verify(args: argparse.Namespace, settings: Settings) -> int:
    from gateway.audit.verify import verify_chains
    from gateway.core.db import Database
    from gateway.tenants.service import find_tenant

    with Database(settings.database_url).session() as session:
        chain_id = None
        if args.tenant:
            tenant = find_tenant(args.tenant, session=session)
            if tenant is None:
                return _fail(f"no tenant {args.tenant!r}")
            chain_id = tenant.id
        report = verify_chains(session=session, chain_id=chain_id)
    for link in report.broken:
        print(f"BROKEN {link}")
    print(f"{report.chains} chain(s), {report.records} record(s) checked: {'ok' if report.ok else 'TAMPERED'}")
    return 0 if report.ok else 2


def cmd_audit_partitions(_args: argparse.Namespace, settings: Settings) -> int:
    from gateway.audit.partitions import maintain_partitions
    from gateway.core.db import Database

    db = Database(settings.database_url)
    try:
        created = maintain_partitions(db)
    finally:
        db.dispose()
    for name in created:
        print(f"created {name}")
    print(f"{len(created)} partition(s) created" if db.engine.dialect.name == "postgresql"
          else "SQLite keeps a plain audit table: nothing to partition")
    return 0


def cmd_audit_purge(args: argparse.Namespace, settings: Settings) -> int:
    import getpass

    from gateway.admin.service import purge_audit
    from gateway.core.db import Database

    db = Database(settings.database_url)
    try:
        # The same round and report as POST /admin/v1/audit/purge; only the rendering as text is the CLI's.
        report = purge_audit(db, default_days=settings.audit_default_retention_days, dry_run=args.dry_run,
                             actor=f"cli:{getpass.getuser()}")
    finally:
        db.dispose()
    verb = "would drop" if report.dry_run else "dropped"
    for purge in report.chains:
        before = purge.purged_before.date().isoformat()
        if purge.skipped:
            print(f"chain {purge.chain_id}: kept records before {before}: {purge.skipped}")
        else:
            where = f" ({len(purge.partitions)} partition(s))" if purge.partitions else ""
            print(f"chain {purge.chain_id}: {verb} {purge.rows} record(s) before {before}{where}; "
                  f"the chain now starts at seq {purge.first_seq} (retention {purge.retention_days} days)")
    for chain_id in report.failed:
        print(f"chain {chain_id}: FAILED, rolled back (see the log); the next round retries it")
    print(f"{report.rows} record(s) {verb} in {len(report.chains)} chain(s)"
          + (" (dry run: nothing changed)" if report.dry_run else ""))
    return 1 if report.failed else 0


def cmd_admin_token(args: argparse.Namespace, settings: Settings) -> int:
    from gateway.adminauth.roles import Role
    from gateway.adminauth.setup import mint_local_token
    from gateway.core.db import Database
    from gateway.tenants.service import find_tenant

    if not settings.admin_local_issuer:
        return _fail("an OIDC issuer is configured (WARDEN_ADMIN_OIDC_ISSUER): get admin tokens from it")
    role = Role(args.role)
    tenant_id = None
    if args.tenant:
        with Database(settings.database_url).session() as session:
            tenant = find_tenant(args.tenant, session=session)
            if tenant is None:
                return _fail(f"no tenant {args.tenant!r}")
            tenant_id = tenant.id
    elif role is Role.TENANT_ADMIN:
        return _fail("a tenant-admin token needs --tenant")
    print(mint_local_token(settings, role, tenant_id=tenant_id, subject=args.subject, ttl_s=args.ttl))
    return 0


def cmd_audit_verify_export(args: argparse.Namespace, _settings: Settings) -> int:
    from gateway.export.signing import load_public_key
    from gateway.export.verify import verify_export

    try:
        manifest = json.loads(Path(args.manifest).read_text())
        public_key = load_public_key(Path(args.public_key).read_bytes())
    except (OSError, ValueError) as exc:
        return _fail(str(exc))
    result = verify_export(Path(args.file), manifest, public_key)
    for problem in result.problems:
        print(f"FAILED {problem}")
    print(f"{result.rows} row(s) checked: {'ok' if result.ok else 'VERIFICATION FAILED'}")
    return 0 if result.ok else 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="warden", description="Warden LLM gateway")
    sub = parser.add_subparsers(dest="command", required=True)

    serve = sub.add_parser("serve", help="migrate (unless --no-migrate), then serve the API (HTTPS unless --http)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=None, help="default 8443 (HTTPS) or 8000 (--http)")
    serve.add_argument("--http", action="store_true", help="plain HTTP (only behind a TLS-terminating proxy)")
    serve.add_argument("--workers", type=int, default=1)
    serve.add_argument("--log-level", default="info")
    serve.add_argument("--no-migrate", dest="migrate", action="store_false",
                       help="leave the schema to `warden db upgrade` (a Kubernetes migration Job); /readyz says "
                            "not ready (schema) until the database has this version's schema")
    serve.set_defaults(func=cmd_serve)

    db = sub.add_parser("db", help="database schema").add_subparsers(dest="db_command", required=True)
    db_upgrade = db.add_parser("upgrade", help="apply every pending migration (on Postgres under an advisory lock: "
                                               "concurrent runs apply each migration once)")
    db_upgrade.add_argument("--wait-s", type=float, default=0.0,
                            help="wait this long for the database to accept connections (a Kubernetes hook Job)")
    db_upgrade.set_defaults(func=cmd_db_upgrade)

    tenant = sub.add_parser("tenant", help="tenants").add_subparsers(dest="tenant_command", required=True)
    create = tenant.add_parser("create", help="create a tenant")
    create.add_argument("name")
    create.set_defaults(func=cmd_tenant_create)
    tenant.add_parser("list", help="list tenants").set_defaults(func=cmd_tenant_list)

    key = sub.add_parser("key", help="API keys").add_subparsers(dest="key_command", required=True)
    issue = key.add_parser("issue", help="issue a key for TENANT (name or id); prints it once")
    issue.add_argument("tenant")
    issue.add_argument("--label", default=None)
    issue.add_argument("--expires-days", type=int, default=None)
    issue.set_defaults(func=cmd_key_issue)
    revoke = key.add_parser("revoke", help="revoke a key by its id")
    revoke.add_argument("key_id")
    revoke.set_defaults(func=cmd_key_revoke)

    policy = sub.add_parser("policy", help="tenant policies").add_subparsers(dest="policy_command", required=True)
    publish = policy.add_parser("set", help="publish FILE (JSON) as TENANT's new active policy version")
    publish.add_argument("tenant")
    publish.add_argument("file")
    publish.set_defaults(func=cmd_policy_set)

    audit = sub.add_parser("audit", help="audit trail").add_subparsers(dest="audit_command", required=True)
    verify = audit.add_parser("verify", help="recompute every hash chain; exit 2 naming the first broken link")
    verify.add_argument("--tenant", default=None)
    verify.set_defaults(func=cmd_audit_verify)

    verify_export = audit.add_parser("verify-export", help="verify an export offline: manifest signature, file "
                                     "hash, every chain link and the signed checkpoints; exit 2 on failure")
    verify_export.add_argument("file")
    verify_export.add_argument("manifest")
    verify_export.add_argument("--public-key", required=True, help="PEM file (GET /admin/v1/audit/public-key)")
    verify_export.set_defaults(func=cmd_audit_verify_export)

    partitions = audit.add_parser("partitions", help="create the audit partitions each chain needs now (Postgres; "
                                  "the server also does this periodically)")
    partitions.set_defaults(func=cmd_audit_partitions)

    purge = audit.add_parser("purge", help="drop audit records past each tenant's retention (whole months; "
                             "tenants on legal hold are kept); every purge is itself an audit record")
    purge.add_argument("--dry-run", action="store_true", help="only print what would be dropped")
    purge.set_defaults(func=cmd_audit_purge)

    admin = sub.add_parser("admin", help="admin API identity").add_subparsers(dest="admin_command", required=True)
    token = admin.add_parser("token", help="mint an admin token from the local issuer (no OIDC issuer set)")
    token.add_argument("--role", required=True, choices=["platform-admin", "auditor", "tenant-admin"])
    token.add_argument("--tenant", default=None, help="the tenant (name or id) a tenant-admin administers")
    token.add_argument("--subject", default=None)
    token.add_argument("--ttl", type=int, default=None, help="seconds (default WARDEN_ADMIN_DEV_TOKEN_TTL_S)")
    token.set_defaults(func=cmd_admin_token)

    # Listed for --help; `main` hands `generate ...` to engine.generate.main before parsing.
    sub.add_parser("generate", help="generate text offline with the engine: warden generate PROMPT [options]")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["generate"]:
        # Everything after `generate` belongs to the engine's own parser (argparse's REMAINDER drops a leading
        # option such as --help), so hand it over untouched.
        from engine import generate

        return int(generate.main(argv[1:]) or 0)
    args = build_parser().parse_args(argv)
    if args.command == "serve" and args.port is None:
        args.port = 8000 if args.http else 8443
    try:
        settings = Settings()
    except ValidationError as exc:
        return _fail(settings_error_message(exc))
    try:
        return int(args.func(args, settings))
    except Exception as exc:
        from sqlalchemy.exc import OperationalError, ProgrammingError

        if isinstance(exc, OperationalError | ProgrammingError) and (
                "no such table" in str(exc) or "does not exist" in str(exc)):
            return _fail("the database has no schema yet: run `warden db upgrade` (or `warden serve`)")
        raise


if __name__ == "__main__":
    sys.exit(main())
