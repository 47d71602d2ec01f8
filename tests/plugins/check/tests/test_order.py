from pytest_check import check

ORDER = {"id": 7, "items": 3, "total": 12.5, "status": "paid"}


def test_order_fields():
    check.equal(ORDER["items"], 2)
    check.equal(ORDER["total"], 12.5)
    with check:
        assert ORDER["status"] == "shipped"
    check.is_in("currency", ORDER)


def test_order_id():
    check.equal(ORDER["id"], 7)
    with check:
        assert ORDER["id"] > 0
