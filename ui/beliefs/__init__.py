"""The belief views: the believed world drawn on the map, the belief timeline and its panel, the belief world panel, belief words, ProToM's particles."""
