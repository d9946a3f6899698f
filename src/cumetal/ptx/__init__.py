"""cumetal.ptx"""
