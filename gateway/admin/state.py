"""What the admin API and the export need beyond the gateway's services, built once by the app factory."""

from __future__ import annotations

from dataclasses import dataclass

from gateway.adminauth.setup import build_validator
from gateway.adminauth.validator import TokenValidator
from gateway.core.settings import Settings
from gateway.export.signing import Signer, load_or_create_signer


@dataclass(slots=True)
class AdminServices:
    validator: TokenValidator
    signer: Signer


def build_admin_services(settings: Settings) -> AdminServices:
    return AdminServices(validator=build_validator(settings),
                         signer=load_or_create_signer(settings.export_signing_key_path))
