Feature: Cart
  A shopper puts things in a cart.

  Scenario: Adding an item
    Given an empty cart
    When I add 2 apples
    Then the cart holds 2 items

  Scenario: Adding twice
    Given an empty cart
    When I add 2 apples
    And I add 1 apples
    Then the cart holds 4 items

  Scenario: Checking out
    Given an empty cart
    When I add 2 apples
    Then I can check out
