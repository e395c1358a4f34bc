(ns example.core
  (:require [clojure.string :as str]))

;; A comment
(defn area
  "The area of a shape."
  [{:keys [kind r] :or {r 1.0}}]
  (case kind
    :circle (* Math/PI r r)
    0))

(defrecord Point [x y])

(def shapes [{:kind :circle :r 2.0} {:kind :square}])

(let [total (reduce + (map area shapes))
      s (str/upper-case "done")]
  (println total s #"ab+c" \a nil true 0x1F))

(defmacro unless [test & body]
  `(if (not ~test) (do ~@body)))
