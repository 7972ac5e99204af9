"""Teaching the pointwise default a teacher's judgement on the CPU: the teacher's scores of a large pool of the
recipe's texts, computed once in parts that resume across machines (:mod:`.pool`, :mod:`.scores`, :mod:`.score_pool`),
and the targets and losses a student learns from them (:mod:`.targets`).
"""
