"""Seasonal discounts."""

SEASONS = {
    "winter": 0.15,
    "summer": 0.05,
}


def seasonal(price, season):
    rate = SEASONS.get(season, 0.0)
    return round(price * (1 - rate), 2)
