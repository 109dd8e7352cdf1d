"""Our own mapping of Google place types and Yelp category aliases to NAICS 2022 codes.

No public, licensed crosswalk exists (see SOURCES.md), so this table is ours: the most
common types, each to the 6-digit NAICS industry that best describes it. A business
whose registry record has a NAICS code keeps that code; this is only the fallback."""

from __future__ import annotations

TYPE_TO_NAICS: dict[str, str] = {
    # food and drink
    "restaurant": "722511", "restaurants": "722511", "meal_takeaway": "722513", "meal_delivery": "722513",
    "fast_food": "722513", "cafe": "722515", "coffee": "722515", "bakery": "311811", "bar": "722410",
    "bars": "722410", "night_club": "722410", "food": "722511",
    # shops
    "supermarket": "445110", "grocery_or_supermarket": "445110", "grocery": "445110",
    "convenience_store": "445131", "liquor_store": "445320", "clothing_store": "458110",
    "shoe_store": "458210", "jewelry_store": "458310", "book_store": "459210", "hardware_store": "444140",
    "home_goods_store": "449129", "furniture_store": "449110", "electronics_store": "449210",
    "pharmacy": "456110", "drugstores": "456110", "florist": "459310", "pet_store": "459910",
    "department_store": "455110", "bicycle_store": "459110", "gas_station": "457110",
    # services
    "bank": "522110", "banks": "522110", "atm": "522110", "insurance_agency": "524210",
    "real_estate_agency": "531210", "realestateagents": "531210", "lawyer": "541110", "lawyers": "541110",
    "accounting": "541211", "dentist": "621210", "dentists": "621210", "doctor": "621111",
    "physicians": "621111", "hospital": "622110", "physiotherapist": "621340", "veterinary_care": "541940",
    "hair_care": "812112", "hair": "812112", "beauty_salon": "812112", "spa": "812199", "laundry": "812320",
    "car_repair": "811111", "autorepair": "811111", "car_wash": "811192", "car_dealer": "441110",
    "gym": "713940", "gyms": "713940", "lodging": "721110", "hotels": "721110", "parking": "812930",
    "storage": "531130", "moving_company": "484210", "travel_agency": "561510", "post_office": "491110",
    "school": "611110", "university": "611310", "library": "519210", "church": "813110",
    "movie_theater": "512131", "museum": "712110", "art_gallery": "459920", "bowling_alley": "713950",
    "electrician": "238210", "plumber": "238220", "roofing_contractor": "238160", "painter": "238320",
    "locksmith": "561622", "general_contractor": "236220",
}


def naics_for_types(types: list[str]) -> str | None:
    """The code of the first type that has one (providers list the most specific type first)."""
    for place_type in types:
        code = TYPE_TO_NAICS.get(place_type.strip().lower())
        if code:
            return code
    return None
