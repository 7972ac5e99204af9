"""Teaching the default the accurate tier's judgement on the CPU: the teacher's scores of a large pool of training
texts, computed once in parts that resume across machines (:mod:`.pool`, :mod:`.teacher_scores`, :mod:`.score_pool`).
"""
