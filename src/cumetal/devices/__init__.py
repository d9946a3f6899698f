"""cumetal.devices"""
