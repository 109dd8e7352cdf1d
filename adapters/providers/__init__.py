"""Third-party data providers over httpx: US Census geocoder, Google Places, Yelp Fusion."""
