"""Where ``explain`` puts a break: its lowest transition and its flags against breaks whose place is known.

``corrupted_news`` (``benchmark localisation``) breaks held-out news documents at one known place; ``cohesentia``
(``benchmark cohesentia-dev``) reads the sentences people marked in CoheSentia's stories, beside the synthetic
duplicates of ``duplicates``.
"""
