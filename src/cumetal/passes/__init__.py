"""cumetal.passes"""
