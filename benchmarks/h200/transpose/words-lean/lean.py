"""The dispatch's expression with skinnyWords' LEAN row side (its defaults spelled out first)."""
from bwlab.workloads.transpose import plans

EXPRESSION = plans.skinnytile_expression


def lean(itemsize, tall, words=False, short=0, asynchronous=None):
    """The dispatch's expression, skinnyWords' with LEAN (its defaults spelled out first)."""
    expr = EXPRESSION(itemsize, tall, words, short, asynchronous)
    if not expr.startswith("skinnyWords"):
        return expr
    args = expr[len("skinnyWords<"):-1].split(",")
    args += ["", "", "0", "false", "1"][len(args):]
    return f"skinnyWords<{','.join(args)},true>"
