"""One benchmark report (issue 15): the figures the benches state, the table
``bench/report.py`` writes from them, and the machine it ran on.

``figures``: the typed record a bench writes for each figure it prints.
``table``: references (an issue's goal, a peer's figure, a floor measured in the
same run), the ratio and met columns, and the Markdown rendering.
``machine``: the host the report ran on.
"""
