"""factory_boy factories shared by the tests."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import factory
from django.contrib.auth import get_user_model

from bingo.common.roles import Role, user_roles_set

DEFAULT_PASSWORD = "correct-horse-battery-staple"


class UserFactory(factory.django.DjangoModelFactory):
    """A user; ``UserFactory(roles=[Role.CASHIER])`` gives them roles. Password: DEFAULT_PASSWORD."""

    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    first_name = factory.Faker("first_name", locale="pt_PT")
    last_name = factory.Faker("last_name", locale="pt_PT")
    password = factory.django.Password(DEFAULT_PASSWORD)

    @factory.post_generation
    def roles(self, create: bool, extracted: Iterable[Role] | None, **kwargs: Any) -> None:
        if create and extracted:
            user_roles_set(user=self, roles=extracted)
