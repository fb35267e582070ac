"""`size`'s cost lines never read 0.00 where nothing is known: nothing placed says so, a size with no price in the
region is named and left out of the sums, which say they are partial (text and JSON)."""

from __future__ import annotations

from tests.test_size_money import size, size_json

H200_8 = "Standard_ND96isr_H200_v5"  # no price in eastus, the table's fallback region (data/prices.yaml)


def test_nothing_placed_is_no_cost_of_zero(capsys) -> None:
    status, out = size(capsys, "--workload", "huge=500")
    assert status == 3
    assert "right-sized (this plan)  nothing placed  nothing placed     0 / 0" in out
    assert "0.00 USD" not in out
    cost = size_json(capsys, "--workload", "huge=500")["cost"]["plan"]
    assert cost["hourly"] is None and cost["monthly"] is None and cost["nothingPlaced"] is True


def test_a_size_with_no_price_is_left_out_of_a_sum_that_says_it_is_partial(capsys) -> None:
    # big goes to an H200 slice (no price in eastus), small to an NV18ads_A10_v5 (1.60 USD/h in eastus)
    status, out = size(capsys, "--workload", "big=120", "--workload", "small=8")
    assert status == 0
    assert f"new   {H200_8} (MIG7g: 7g.141gb)  141             126.9       1        1      no price known" in out
    assert "right-sized (this plan)    1.60 USD, partial  1,168.00 USD, partial" in out
    assert (f"No price known for {H200_8} in eastus: left out of the figures above, which are partial where they say "
            "so, never counted as 0.") in out
    assert f"no price known for {H200_8} in eastus (the price table has none there, so Azure is not known to sell it " \
           "there" in out
    plan = size_json(capsys, "--workload", "big=120", "--workload", "small=8")["cost"]["plan"]
    assert plan["hourly"] is None and plan["unpriced"] == [H200_8] and plan["pricedPartHourly"] == 1.6
