"""cumetal.backends"""
