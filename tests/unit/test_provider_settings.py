"""Choosing a lookup provider by environment variables: a provider that needs a key refuses to start without one."""

from __future__ import annotations

import pytest

from entrypoints.settings import Settings, SettingsError


def test_embedded_defaults_need_no_key() -> None:
    settings = Settings.from_env({})
    assert (settings.geocoder, settings.places_provider) == ("embedded", "registry")


def test_census_geocoder_needs_no_key() -> None:
    assert Settings.from_env({"PERILSCOPE_GEOCODER": "census"}).geocoder == "census"


@pytest.mark.parametrize(
    ("provider", "variable"), [("google", "GOOGLE_MAPS_API_KEY"), ("yelp", "YELP_API_KEY")]
)
def test_places_provider_needs_its_key(provider: str, variable: str) -> None:
    with pytest.raises(SettingsError, match=f"PERILSCOPE_PLACES_PROVIDER={provider} needs {variable}"):
        Settings.from_env({"PERILSCOPE_PLACES_PROVIDER": provider})
    settings = Settings.from_env({"PERILSCOPE_PLACES_PROVIDER": provider, variable: "k3y"})
    assert settings.places_provider == provider


@pytest.mark.parametrize(
    ("variable", "value"), [("PERILSCOPE_GEOCODER", "nominatim"), ("PERILSCOPE_PLACES_PROVIDER", "foursquare")]
)
def test_unknown_provider_names_are_refused(variable: str, value: str) -> None:
    with pytest.raises(SettingsError, match=f"{variable} must be one of .*not '{value}'"):
        Settings.from_env({variable: value})
