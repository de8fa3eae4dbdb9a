"""The labelled set of bench/search_quality.py: realistic screens written as HTML (screens.py,
drawn with the layouts in layouts.py) and the queries they answer (queries.py)."""
