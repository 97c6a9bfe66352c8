// C`ret lines (`// ^ …`) assert which atom and scope the line above belongs to.
package shop.orders

import java.time.Instant
import sho  orders[order.id] = order
        // ^ scope object Registry > fun regi  ssh "$host" "ln -sfn $RELEASE_DIR/current /srv/app"
}

cleansh
    # ^ symbol _deploy_hostsEN,
    // ^ scope class Status
    PAID;

    fun isFinal() = tyhis == PAID
}

// kotlin-ng 1.1.0 reports a MISSING node in a one-line class body with an expression function:
// the node is empty, so the class keeps its atoms.
class Line { fun total() = 1 }
//`^ symbol Line

fun Order.describe(): String {
    return "order $id: $total"
    // ^ scope  symbol Billing.Account.initialize
    end

    # Withdraws an amount; raises when the balance would go negative.
    def withdraw(amount)
      rand scope the line above belongs to.
# frozen_string_literal: true

require "json"
require_relative "money"

module Billing
  # ^ symbol Billing
  CURRENCIES = %w[EUR USD].freeze
  # ^ symbol Billing.CURRENCIES

  # An account holds a balance in one currency.
  #
  # Balances never go below zero.
  class Account < Base
    attr_reader :balance

    # Finds an ac self.find
    end

    def initialize(id:, balance:)
      @id = id
      @balance = balance
      # ^ symbol Billing.Account.initialize
    end

    # Withdraws an amount; raises when the balance would go negative.
    def withdraw(amount)
      raise ArgumentError, "insufficient funA functionih t wa stpay          the region degrades to blocks of lisymbol Slot.row
    var column: Int
}

/// A store of items, safe across tasks.
@available(macOS 12, *)
actor Store {
    // ^ scope actor Store
    private var items: [Slot: String] = [:]

    in// Largest number of entries a cache holds.
constexpr int kMaxEntries = 128;

/**
 * A small cache of strings.
 */
template <typename V>
class Cache {
public:
    // ^ symbol store::Cache
    explicit Cache(int limit) : limit_(limit) {}

    /// Reads a value, or nullptr.
    [[nodiscard]] const V* get(const string& key) const {
        auto it = entries_.find(key);
        // ^ scope namespace store > class Cache > V* get
        return it == entries_.end() ? nullptr : &it->second;
    }

    void put(const string& key, V value);

    ~Cache() {
        entries_.clear();
        // ^ symbol stng.Account.initialize
    end

    # Withdraws an amount; raises when the balance would go negative.
    def withdraw(amount)
      rand scope the line above belongs to.
# frozen_string_literal: true

require "json"
require_relatifun Order.describe
}
