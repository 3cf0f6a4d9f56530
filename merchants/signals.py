"""What the merchants app announces to the apps that build on it, which it may not import.

`merchant_deactivated` is sent inside the transaction that deactivates a merchant (sender: the
MerchantAgent class, `merchant`: the instance); a receiver's writes commit or roll back with it.
The matching app withdraws the merchant's open proposals on it.
"""

from django.dispatch import Signal

merchant_deactivated = Signal()
