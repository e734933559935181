"""One module per part of the round: the rule kernels over the pending-decision stack.

| module      | rules         |
|-------------|---------------|
| selection   | 3.1, 3.2, 3.3 |
| settler     | 4.1           |
| mayor       | 4.2           |
| builder     | 4.3           |
| craftsman   | 4.4           |
| trader      | 4.5           |
| captain     | 4.6, 4.7      |

Each module has a ``drive_*`` kernel (what happens when nothing is asked: the next
player's turn, or the end of the phase) and a ``legal_*`` / ``apply_*`` pair for each
decision it asks; ``dispatch`` wires them together.
"""
