"""How fast the metric scores, and what a faster number format costs in scores.

``cpu_speed`` is ``coherence-metric benchmark speed`` (texts per second and memory against a paper-faithful
reference); ``gpu_speed`` the same question on a lent GPU; ``long_text_speed`` what windowing a long text costs;
``int8_check`` whether int8 would pay on this CPU; ``dtype_tolerance`` how far bf16 moves scores from fp32.
"""
