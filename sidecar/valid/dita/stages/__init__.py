"""The stages of the DITA-OT preprocess2 emulation (valid.dita.preprocess), one module per stage.

Each stage is a mixin of the preprocessor, which holds one build's state (the doc set, the
filter, caches, warnings); valid.dita.preprocess runs them in DITA-OT's order.
"""
