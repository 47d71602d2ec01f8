from decimal import Decimal

import pytest

from catalog.models import Product


@pytest.mark.django_db
def test_create_product():
    Product.objects.create(name="tea", price=Decimal("3.50"))
    assert Product.objects.count() == 1


@pytest.mark.django_db
def test_names_are_unique():
    Product.objects.create(name="tea", price=Decimal("3.50"))
    Product.objects.create(name="tea", price=Decimal("4.00"))


@pytest.mark.django_db
def test_cheapest_first():
    Product.objects.create(name="tea", price=Decimal("3.50"))
    Product.objects.create(name="cake", price=Decimal("2.00"))
    names = [p.name for p in Product.objects.order_by("-price")]
    assert names == ["cake", "tea"]


def test_str_needs_no_database():
    assert str(Product(name="jam", price=Decimal("1"))) == "jam"


def test_count_without_the_mark():
    assert Product.objects.count() == 0


def test_settings(settings):
    assert settings.USE_TZ is True
