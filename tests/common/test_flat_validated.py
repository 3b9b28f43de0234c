"""``flat_validated`` (bingo/common/api.py) validates as the serializer it stands for: the same
data, or the same errors with the same codes, in the request's language."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation
from rest_framework import exceptions, serializers

from bingo.common.api import flat_validated
from bingo.online.api import PurchaseSerializer
from bingo.sales.api import IdempotencyKeySerializer

INPUTS: list[Any] = [
    {"quantity": 2, "key": "k1"},
    {"quantity": "3", "key": "k1", "other": "ignored"},
    {"quantity": 0, "key": "k1"},
    {"quantity": 10_000, "key": "k1"},
    {"quantity": 1.5, "key": "k1"},
    {"quantity": "dois", "key": "k1"},
    {"quantity": None, "key": "k1"},
    {"quantity": 1, "key": ""},
    {"quantity": 1, "key": "x" * 500},
    {"quantity": 1, "key": None},
    {"quantity": 1},
    {"key": "k1"},
    {},
    [],
    ["quantity", 1],
    "quantity=1",
    7,
    None,
]


def _outcome(run: Any) -> tuple[str, Any]:
    try:
        return "valid", run()
    except exceptions.ValidationError as exc:
        return "refused", (exc.detail, exc.get_codes())


def _serializer(cls: type[serializers.Serializer[Any]], data: Any) -> Any:
    form = cls(data=data)
    form.is_valid(raise_exception=True)
    return dict(form.validated_data)


@pytest.mark.parametrize("data", INPUTS, ids=repr)
@pytest.mark.parametrize("language", ["pt", "en"])
def test_the_purchase_is_validated_as_its_serializer_would(data: Any, language: str) -> None:
    with translation.override(language):
        ours = _outcome(lambda: flat_validated(PurchaseSerializer, data))
        drf = _outcome(lambda: _serializer(PurchaseSerializer, data))
    assert ours == drf


@pytest.mark.parametrize("key", ["abc-1", "", None, "a b", "x" * 41])
def test_a_regex_field_is_validated_as_its_serializer_would(key: Any) -> None:
    data = {"key": key}
    assert _outcome(lambda: flat_validated(IdempotencyKeySerializer, data)) == _outcome(
        lambda: _serializer(IdempotencyKeySerializer, data)
    )


def test_the_errors_speak_the_requests_language() -> None:
    with translation.override("pt"):
        pt = _outcome(lambda: flat_validated(PurchaseSerializer, {"quantity": "dois", "key": "k"}))
    with translation.override("en"):
        en = _outcome(lambda: flat_validated(PurchaseSerializer, {"quantity": "dois", "key": "k"}))
    assert en[1][0]["quantity"] == ["A valid integer is required."]
    assert pt[1][0]["quantity"] != en[1][0]["quantity"]


def test_a_serializer_that_validates_more_than_its_fields_is_refused() -> None:
    class Both(serializers.Serializer[Any]):
        a = serializers.IntegerField()

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            return attrs

    class OneField(serializers.Serializer[Any]):
        a = serializers.IntegerField()

        def validate_a(self, value: int) -> int:
            return value

    class Together(serializers.Serializer[Any]):
        a = serializers.IntegerField()

        class Meta:
            validators = [lambda attrs: None]

    for kind in (Both, OneField, Together):
        with pytest.raises(TypeError):
            flat_validated(kind, {"a": 1})
