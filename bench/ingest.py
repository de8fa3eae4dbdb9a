"""Ingest on a real `manage.py serve` (web server + OCR worker) in a temporary data dir.

Renders realistic 1920x1080 screens from tests.screens.session (fixed seed) as PNG; in
each one a made-up word is typed, so a search for it can only be answered from that
frame or a later one, and a topic of its own is written into the window (a note, message
or page of eight lines from TOPICS, each used once per run; it stays in the window, as a
message would, so later frames of that window show it too). Then measures:

  (b) a paced run, one frame every --interval s: time from the POST to the moment
      GET /api/v1/search returns the frame's new word (polled every 100 ms), and the
      worker's OCR seconds per frame and OCR'd share of the image (from the database);
      beside it, time-to-searchable by meaning: from the POST to the moment
      GET /api/v1/search?mode=semantic finds the frame by a paraphrase of its topic that
      shares no content word with it, among this frame and later ones only (the goal is
      about indexing delay; ranking is bench/search_quality.py's job). After (b), this
      process checks each topic against the frame's OCR text (read back? paraphrase above
      the search's similarity floor?). (b) starts once the web server and the worker have
      their embedding model loaded. A topic is new text to OCR on every frame, so the
      keyword figures differ from a run without topics (--no-topics: the earlier screens);
  (c) bytes stored per frame: the image file, and the database rows and FTS index
      entries (SQLite's dbstat, per table);
  (a) burst ingest: frames/s accepted by POST /api/v1/frames from one client and from
      four, each frame on its own device name so nothing is skipped as a duplicate
      (run after (b) so its OCR backlog does not slow (b) down);
  (d) OCR quality of the stored WebP against the original PNG and other WebP qualities,
      as word recall against the text drawn.

With --during-import N, only (e) runs: live frames while a folder of N screenshots is imported.
The folder (1920x1080 PNG screens of a working session taken yesterday, one every IMPORT_STEP
steps, so most show another window than the one before; none a near-duplicate of the one before,
so every one is stored) is imported with `manage.py frames_import` on the running
serve; once its first frames are stored, a live frame (its own word typed, as in (b)) is posted
every --interval s, --live-frames of them, while the worker still has the import to read. Measures
each live frame's time from the POST to its word found by keyword search, and to its vectors
written; the import's frames read during the live phase (the backlog keeps draining), the time
the rest took to drain after it, and how many tasks were given a turn (MYRECALL_TASK_TURN_S).

With --workers 1,2,4, only (w) runs: worker scaling. For each count, in turn on one running serve
(its own worker, and more `manage.py worker` processes started beside it on the same data dir and
database), --worker-frames frames are posted at once (each on its own device: nothing skipped, a
full OCR of each) and timed from the first POST to every frame's OCR over (its words searchable);
prints frames/s per worker count, the CPU seconds per frame of every process (web, workers, vector
server, PostgreSQL) and the cores of the machine, what that means for a machine with more cores,
and the bytes per frame. The embedding that follows is waited for before the next count.

With --database postgres, the server runs on a PostgreSQL 15 of the bench's own (bench.pg: initdb
in a temp dir, the settings it prints) instead of its data dir's SQLite file; every figure above is
measured the same way, bytes per table from pg_total_relation_size.

Prints figures, asserts nothing.

    .venv/bin/python bench/ingest.py --frames 40 --interval 3
    .venv/bin/python bench/ingest.py --database postgres --workers 1,2,4 --worker-frames 200
    .venv/bin/python bench/ingest.py --frames 40 --interval 3 --no-topics   # keyword only, earlier screens
    .venv/bin/python bench/ingest.py --during-import 1000 --live-frames 100 --interval 3 --no-topics
"""

import argparse
import io
import json
import math
import os
import random
import re
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import requests
from PIL import Image
from tqdm import tqdm

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.pg import BenchPostgres, ReadOnlyDb, settings_parse, table_bytes_pg  # noqa: E402
from tests.server import LiveServer  # noqa: E402
from bench.quality.queries import STOPWORDS, shared_words, word_stem  # noqa: E402
from tests.screens import EN_WORDS, Screen, render, rows_for, session  # noqa: E402
from frames.text import text_unpack  # noqa: E402

GOAL_SEARCHABLE_P95_S = 5.0
GOAL_BYTES_PER_FRAME = 100 * 1024
POLL_STORED_S = 0.1
# A word typed into a skipped duplicate waits for a later frame: poll it gently.
POLL_SKIPPED_S = 1.0
BURST_CLIENTS = 4
IMPORT_DEVICE = "import"
LIVE_DEVICE = "live"
IMPORT_SAMPLE_S = 1.0
# An imported screenshot every this many steps of the session: a folder of screenshots taken now
# and then, mostly of other windows than the one before (each step switches with p = 0.15), so the
# worker reads most of each screen, not a typed word.
IMPORT_STEP = 10
SQLITE_NAME = "myrecall.sqlite3"  # the database in a data dir, on SQLite
WORKER_READY = "[worker] ready"  # what a worker prints once its start-up hooks (OCR engine, embedder) ran
EN_TOKEN = re.compile(r"[a-z]+")
CJK_CHAR = re.compile(r"[\u4e00-\u9fff]")


# Topics for time-to-searchable by meaning: each paced frame shows one (a note, message or page on
# one subject: a heading and seven lines, written over lines of its window), once per run, and
# is looked for with its paraphrase, which shares no content word with it (topics_check) nor with
# the filler text the screens are made of (tests.screens.EN_WORDS), so only its meaning can find it.
# Why eight lines: the worker embeds a frame's whole text in chunks of up to 256 tokens, and a
# screen here holds about 280, so a topic is a small part of its chunk; with two lines, about 80%
# of paraphrases fell under the search's similarity floor (0.2), with six still 37%, with eight
# under 2% (the packaged MiniLM, drawn text, 10 placements of each topic on other sessions'
# screens). The paraphrases were chosen by that measure too, among ones sharing no word.
# (paraphrase query, topic lines separated by " | ": a heading, then the body)
TOPICS_RAW: list[tuple[str, str]] = [
    ("dinner reservation at an Italian restaurant",
     "Trattoria Roma - booking confirmed | Table for four on Friday at 8 pm, name: Keller | "
     "Confirmation RT-5521, the table is held for 15 minutes | Tonight's specials: risotto, osso buco, tiramisu | "
     "Wood-fired pizza and fresh pasta made in house | Wine pairing available, ask the sommelier | "
     "Terrace seating if the weather allows | Call +39 06 555 0199 to change or cancel"),
    ("plane trip to Portugal",
     "Boarding pass - Lufthansa LH 2471 | Munich (MUC) to Lisbon (LIS), departs 07:15, gate B34 | "
     "Seat 14C, economy, one cabin bag of 8 kg | Boarding closes 20 minutes before departure | "
     "Arrival in Lisbon 09:05 local time, terminal 1 | Flight time 2 h 50 min, snacks on board | "
     "Connecting flight to Porto on Monday | Check the airline app for delays"),
    ("teeth cleaning at the dentist rescheduled",
     "Dr. Keller Dental Practice | Your hygiene appointment is moved to Tuesday at 10:30 | "
     "Please arrive ten minutes early and bring your insurance card | The hygienist will polish, floss and check your gums | "
     "New x-rays of your molars are due this visit | Tell us about any sensitivity or bleeding | "
     "Dental check-ups are covered twice a year | Reply C to confirm or R to pick another time"),
    ("shopping list for the supermarket",
     "Groceries for the weekend | Oat milk, a dozen eggs, spinach, sourdough bread, bananas | "
     "Coffee beans, dish soap, olive oil, cherry tomatoes | Chicken thighs and rice for Sunday dinner | "
     "Yogurt and apples for the kids' lunchboxes | Frozen peas, butter, cheddar, paper towels | "
     "Aisle 7 for cereal, the deli counter for ham | Use the loyalty coupon at checkout"),
    ("boiler maintenance visit in my rented apartment",
     "Notice to tenants of flat 3B | The heating system will be serviced on Thursday morning | "
     "A technician needs access to your radiators between 9 and 12 | Hot water may be off for about two hours | "
     "The gas furnace in the basement gets its yearly safety inspection | Please keep the thermostat set to low until then | "
     "Bleed valves will be checked in every room | Questions: building management, ext. 204"),
    ("courier bringing my parcel this afternoon",
     "Your package is out for delivery | Tracking 1Z 999 AA1 01 2345 6784, UPS Ground | "
     "Expected today between 2 pm and 6 pm | Signature required at the door, 2 boxes, 6.4 kg | "
     "Shipped from the Amazon warehouse in Reno | Not home? Choose a pickup point or a neighbor | "
     "The van is 5 stops away | The driver will call 10 minutes before arrival"),
    ("celebrating a colleague getting a year older with dessert",
     "Surprise for Anna at 3 pm | Cake in the kitchen, chocolate with raspberries and 30 candles | "
     "We sign the card at lunch, she turns thirty today | A gift voucher from the whole team | "
     "Balloons and streamers are in the supply room | We sing when she comes back from her meeting | "
     "Party hats for everyone on the team | Keep it quiet until she walks in"),
    ("my son and daughter learning to float and paddle",
     "Kids' swim lessons | Lessons start next Monday at the community pool | "
     "Goggles, a towel and a swim cap, each class runs 45 minutes | Level 2 group for Emma, level 1 for Noah | "
     "They practice kicking, breathing and backstroke | Parents wait in the gallery above the lanes | "
     "Lifeguards on duty, no diving in the shallow end | Badges for 25 meters at the end of term"),
    ("vehicle maintenance bill from the mechanic",
     "AutoCare invoice #4471 | Oil change, new brake pads and front rotors | "
     "Tire rotation and wiper blades replaced | Engine air filter and coolant flush | "
     "Parts $268.10, labor $144.50, total $412.60 | Next inspection due in 10,000 miles | "
     "Warranty on parts for 12 months | Your car is ready for pickup after 4 pm"),
    ("stormy forecast, a wet day ahead",
     "Weather tomorrow | Heavy rain and thunderstorms from noon, high of 14 C | "
     "Wind gusts up to 60 km/h, flooding possible near the river | Take an umbrella and boots, the outdoor market is cancelled | "
     "Lightning risk until late evening | Up to 40 mm of rain in six hours | "
     "Severe weather warning for the coast | Temperatures drop to 6 C overnight"),
    ("stretching and meditation practice venue change",
     "Yoga studio update | Wednesday's class moves to Studio 2, 6:30 pm | "
     "Vinyasa flow with Priya, 60 minutes, all levels | Bring your own mat and a blanket for the final relaxation | "
     "We focus on hip openers and slow breathing | Beginners welcome, arrive early to warm up | "
     "Blocks and straps are in the cupboard | Namaste, see you on the mat"),
    ("how to cook pasta for dinner",
     "Tomato basil spaghetti | Simmer the tomatoes with garlic and olive oil for 20 minutes | "
     "Add torn basil and a pinch of salt and chili | Boil the spaghetti in salted water until al dente | "
     "Keep a cup of the starchy water | Toss with the tomatoes and grated parmesan | "
     "Or use penne or linguine instead | Serves four, ready in 30 minutes"),
    ("financing the purchase of our house",
     "Mortgage rate lock confirmation | Your rate is locked at 5.1% fixed for 30 years | "
     "Loan amount $412,000 with 20% down, closing on June 14 | Bring photo ID and a cashier's check to the title office | "
     "Monthly principal and interest: $2,239 | Property taxes and homeowner's insurance go into escrow | "
     "The appraisal came in at the sale price | Sign the disclosure within three days"),
    ("taking my dog for jabs at the animal doctor",
     "Riverside Vet Clinic reminder | Bella is due for her rabies shot and deworming | "
     "Her annual checkup includes weight, teeth and heartworm test | The clinic opens at 8, walk-ins until noon | "
     "Bring her leash and last year's vaccination card | Flea and tick medicine refills at the front desk | "
     "Our vets see cats and puppies too | Fasting is not needed"),
    ("rock band gig we are going to",
     "Your tickets: Radiohead live | O2 Arena London, Saturday 14 June | "
     "Row F, seats 12 and 13 | Doors open 7 pm, support act at 7:45 | "
     "Thom Yorke and co play OK Computer in full, then the hits | Guitars loud, earplugs at the bar | "
     "E-tickets are in the app, no re-entry | Merch stand near entrance B"),
    ("energy utility charge I still owe",
     "City Power & Light - bill ready | Electricity for May: 412 kWh, $86.40 | "
     "Due on the 28th, autopay is off for this account | Pay online or by phone to avoid a late fee | "
     "Your usage is 12% higher than last May | Gas for heating: 38 therms, $41.20 | "
     "Meter read on May 30 | Tip: lower the thermostat at night"),
    ("jogging training ahead of the big endurance event",
     "Marathon plan, week 6 | Long run of 28 km on Sunday at an easy pace | "
     "Tuesday intervals: 6 x 800 m, Thursday tempo 10 km | Hydrate every 5 km and take a gel at 15 km | "
     "Stretch and foam-roll afterwards | New running shoes at 400 km | "
     "Rest day on Friday, an easy swim on Saturday | Race day is 8 weeks away"),
    ("late penalty for a novel I borrowed",
     "City Library - overdue notice | 'The Overstory' by Richard Powers was due on March 3 | "
     "Return it or renew it online to avoid a fine | Fines are 25 cents a day, up to $5 | "
     "Drop it in the return slot at any branch | Your hold on 'Klara and the Sun' is ready too | "
     "Your library card expires in June | Branch hours: 10 am to 8 pm"),
    ("accommodation on the French Riviera for a summer holiday",
     "Hotel Bellavista, Nice - reservation | Two nights from July 12, double room with sea view | "
     "Check-in after 3 pm, breakfast on the terrace included | Five minutes' walk to the Promenade des Anglais | "
     "Pool, beach towels and a rooftop bar | Day trips to Monaco and Cannes by train | "
     "Free cancellation until July 5 | Parking 25 EUR per night"),
    ("invitation to a friend's wedding",
     "Tom & Priya are getting married! | Saturday, September 21, 4 pm at Hillside Vineyard | "
     "Ceremony in the garden, dinner and dancing after | Please RSVP by August 1 and note any dietary needs | "
     "The bride and groom are registered at Crate & Barrel | Dress code: summer formal | "
     "Vows at 4, reception at 6 | Shuttle from the Grand Hotel at 3:15"),
    ("applying for a new travel document",
     "Passport renewal | Form DS-82 mailed to the State Department with a $130 check | "
     "Old passport and two photos enclosed | Processing takes 6 to 8 weeks, tracking 9400 1000 | "
     "Expedited service costs $60 more | Needed for the trip to Japan in October | "
     "Check the visa rules for Japan too | Status online at passports.state.gov"),
    ("suspending my fitness club subscription",
     "FitLife membership on hold | Your membership is frozen for two months from May 1 | "
     "No monthly fee while paused, it restarts July 1 | Please empty your locker before the freeze | "
     "Classes, the weights room and the pool are not available meanwhile | Personal training sessions are kept | "
     "Reactivate early at the front desk | See you back at the gym"),
    ("fixing a dripping tap in the house",
     "Quote from Ace Plumbing | Replace the leaking kitchen faucet and the shut-off valve | "
     "Parts $140, labor $100, total $240 | He can come Saturday between 10 and 2 | "
     "Water will be off for about an hour | New washers for the bathroom sink too | "
     "Old fixture taken away at no charge | Licensed plumber, 1-year guarantee"),
    ("IRS money coming back this spring",
     "Tax return filed | Federal refund of $1,215 expected in about three weeks | "
     "Direct deposit to checking account ending 0442 | State return accepted too, $212 owed by April 15 | "
     "Deductions: mortgage interest, charity, student loan | Keep the W-2 and receipts for seven years | "
     "Filed with TurboTax on March 2 | Track it with Where's My Refund"),
    ("nursery shut, need a babysitter",
     "Little Stars Daycare - notice | We are closed this Friday for a staff development day | "
     "Please arrange other care for your child | Regular hours resume Monday at 7:30 | "
     "Toddler and infant rooms both closed | Pickup and drop-off times stay the same | "
     "The preschool fair is next month | Thank you for your understanding, parents"),
    ("suspicious transactions, possible identity theft",
     "Fraud alert from First Bank | Card ending 4821 was used at a Shell station for $62.15 | "
     "Another charge of $980 at Electronics World is on hold | If this wasn't you, call us at 1-800-555-0100 | "
     "Reply YES if you made these purchases | Someone may have your card number | "
     "We will send you a new card | Your card is locked until we hear from you"),
    ("exhibit of a famous French artist's canvases at the gallery",
     "Museum of Modern Art | Matisse: The Red Studio opens March 8 | "
     "Members preview the evening before, 6 to 9 pm | Over 60 works: paintings, cut-outs and drawings | "
     "Curator's talk on Henri Matisse and color on Sunday | Timed tickets required, audio guide included | "
     "Also on view: Picasso and Cezanne | Cafe on the 5th floor open late"),
    ("getting ready to change address, hiring a truck",
     "Moving day checklist | Rent the van for Saturday 8 am, 15 ft | "
     "Pack the books and kitchen, label every box by room | Forward the mail and move the internet service | "
     "Bubble wrap for the glasses, tape, markers | Keys handed over to the landlord at noon on the 30th | "
     "Movers for the sofa and the piano | Pizza and beer for the friends who help"),
    ("my daughter's keyboard music concert",
     "Spring piano recital | Emma plays Fur Elise, Sunday 4 pm in the school hall | "
     "Each student plays one piece, about 5 minutes | Parents welcome, flowers for the performers | "
     "She practices scales and the left hand every evening | Dress rehearsal Saturday at 2 | "
     "A grand piano on the stage | Teacher: Mrs. Chen"),
    ("gear list for an outdoor weekend in the forest",
     "Camping trip, Pine Lake | Tent, sleeping bags, headlamps, stove and gas | "
     "Site 17, arriving Friday evening, two nights | Marshmallows for the campfire and bug spray | "
     "Firewood can be bought at the ranger station | Hiking trails through the pine trees to the lake | "
     "Bear box for food, no glass bottles | No cell signal at the site"),
    ("medical test figures from my doctor",
     "Lab results from Dr. Patel | Cholesterol 182 mg/dL, LDL 104, HDL 58 | "
     "Blood sugar normal, A1C 5.3% | Vitamin D a little low, take 1000 IU daily | "
     "Blood pressure 124/80, thyroid normal | No change to medication, recheck in a year | "
     "Your annual physical is complete | Message me with any questions"),
    ("literary society's chosen title for the upcoming session",
     "Book club - next pick | We read 'Circe' by Madeline Miller for next month | "
     "At Sara's place on the 18th at 7 | Bring snacks, Sara makes tea | "
     "Discussion questions are in the shared doc | Last month's book, 'Educated', got 4 stars | "
     "Chapters 1 to 12 for the first half | Nominate the pick after that by Friday"),
    ("vehicle breakdown help on the motorway",
     "Roadside assistance request #5520 | Flat tire on I-95 northbound near exit 23 | "
     "Tow truck ETA 40 minutes, driver Mike | Stay inside the car with hazard lights on | "
     "The spare is damaged, tow to the nearest tire shop | Set the warning triangle 50 m behind | "
     "The highway patrol has been notified | Covered by your membership"),
    ("childminder booked for a date night",
     "Babysitter for Saturday | Confirmed with Chloe, 7 to 11 pm, $18 an hour | "
     "Kids' bedtime is 8:30, one story each | Pizza in the freezer, no sweets after 7 | "
     "Emergency numbers on the fridge | The baby monitor is on the shelf | "
     "We'll be at the theater, phone on vibrate | Dinner for two at 7:30 first"),
    ("learning to go downhill on snow in the mountains",
     "Ski school, Alpine Meadows | Beginner group, Monday to Friday, 9 to 12 | "
     "Rental boots, skis and poles at the base lodge | Meet the instructor at the magic carpet | "
     "Day 1: wedge turns, day 3: the blue slope | Helmets required for all lessons | "
     "Goggles and gloves, it's -8 C at the summit | Lift pass included"),
    ("magazine yearly fee recurring",
     "The Atlantic - subscription renewal | Your digital subscription renews on April 2 for $79.99 | "
     "Unlimited articles and the print edition monthly | Cancel anytime in account settings | "
     "Gift a subscription to a friend for $49 | The April issue: essays, fiction and reporting | "
     "Billed to the card on file | Thank you for reading"),
    ("missing bag on public transport",
     "Lost and found - Metro Transit | Black backpack left on bus 42 this morning | "
     "Contains a laptop, a blue notebook and keys | Reward offered, call 555-0148 | "
     "Left on the seat behind the driver at 8:10 | Claim at the central depot with ID | "
     "Subway lost items go to Union Station | Items are kept for 30 days"),
    ("antibiotic medicine to collect at the drugstore",
     "Pharmacy - prescription ready | Amoxicillin 500 mg, 21 capsules, ready for pickup | "
     "Take one capsule three times daily with food | Finish the whole course even if you feel better | "
     "Prescribed by Dr. Patel for a throat infection | Copay $8.50 | "
     "Ask the pharmacist about side effects | Pickup counter open until 9 pm"),
    ("growing vegetables in the backyard this spring",
     "Garden plan | Plant tomatoes and zucchini after the last frost | "
     "Add compost to the raised beds in April | Sow carrots, lettuce and beans in rows | "
     "Seedlings of peppers and cucumbers on the windowsill | Water in the morning, mulch against weeds | "
     "Herbs by the kitchen door: basil, parsley, mint | Harvest from July"),
    ("job with compensation to accept soon",
     "Offer letter - Northwind Traders | Position: senior analyst, start date June 2 | "
     "Salary $92,000 plus an annual bonus of up to 10% | Benefits: health, dental, 401k match, 25 days off | "
     "Reporting to the head of finance | Hybrid, three days a week in the office | "
     "Please sign and reply by Friday | Welcome aboard!"),
    ("talk with my son's educator about his schoolwork",
     "Parent-teacher conference | Liam, grade 4, Thursday 5:15 pm, room 204 | "
     "Topics: reading progress and homework habits | Ms. Garcia will share his math test scores | "
     "His report card and classroom behaviour | 15 minutes per family | "
     "Spelling and science projects are on display | Sign up for a slot at the front office"),
    ("smoke detector drill at the office",
     "Building notice: fire alarm test | Wednesday at 10 am, all floors | "
     "Expect the siren for up to 15 minutes | No evacuation needed during the test | "
     "Sprinklers and emergency lights are checked too | Elevators stay in service | "
     "Fire wardens on each floor | Facilities team, ext. 311"),
    ("sharing rides to work",
     "Carpool for next week | I'll drive Monday and Wednesday, you take Tuesday and Thursday | "
     "Pick-up at 7:40 by the corner bakery | Friday we take the train | "
     "Text me if you're running late | Gas money split evenly | "
     "Parking at the office lot, level 2 | Back home by 6 most days"),
    ("football training scrapped due to rain",
     "Soccer practice cancelled | Tonight's practice is off, the field is flooded | "
     "Makeup session on Saturday at 10 | Bring cleats and shin guards | "
     "Match against the Tigers still on for Sunday | Goalkeepers bring gloves | "
     "Kickoff drills and passing first | Coach Daniel"),
    ("bicycle service finished",
     "Bike shop - repair ready | New chain, tuned gears and trued wheels | "
     "Brakes adjusted, tires pumped | Derailleur cleaned and cables replaced | "
     "Total $58, ready to collect | Pedals and saddle tightened | "
     "Open until 6 pm | Thanks for riding with us"),
    ("November holiday meal with relatives",
     "Thanksgiving at Mom's | I'm bringing the pumpkin pie and rolls | "
     "Turkey goes in at noon, we eat around 5 | Uncle Joe brings the stuffing and cranberry sauce | "
     "Mashed potatoes, gravy and green beans | Grandma says grace before dinner | "
     "Football on TV after dinner | Leftovers to take home"),
    ("my vehicle's broken front screen is covered",
     "Insurance claim #88213 approved | Damage: cracked windshield on the 2019 Civic | "
     "Glass replacement booked at AutoFix on Monday | Deductible $100 | "
     "A stone hit the windshield on the highway | The car must stay 1 hour after the repair | "
     "Rental car not needed | Keep the receipt for your records"),
    ("loud celebration next door this weekend",
     "Hi neighbors! | We're having a party on Saturday night | "
     "There may be music until midnight, sorry for the noise | You're all welcome to drop by, bring a friend | "
     "A DJ, drinks and dancing in the courtyard | Apartment 4C | "
     "We'll clean up on Sunday morning | Cheers, Ben and Lucy"),
    ("landlord raising what I pay for housing",
     "Rent increase notice | Your rent goes from $1,850 to $1,950 starting August 1 | "
     "The lease papers are attached, please sign by July 15 | Parking stays at $75 | "
     "The new lease runs 12 months | Questions: contact property management | "
     "Utilities are not included | Thank you for being a tenant"),
    ("optician appointment for spectacles",
     "Vision Plus - your exam results | New glasses prescription: -1.75 in both eyes | "
     "Frames ready in ten days | Anti-glare coating added | "
     "Your eye pressure and retina look healthy | Contact lens fitting next visit | "
     "Lenses are thinner, no blur at night | Bring your old pair for adjustment"),
    ("traffic diversion because of construction work",
     "Road closure | Main Street bridge shut for repairs until May 20 | "
     "Detour via Oak Avenue, expect delays | Bus routes 12 and 14 rerouted | "
     "Pedestrians use the temporary walkway | Cranes and road crews on site weekdays | "
     "Lanes reopen in stages | City Transportation Department"),
    ("influenza vaccine without booking",
     "Flu shot clinic | At the pharmacy, Saturday 9 to 1 | "
     "No appointment needed, bring your insurance card | Free for seniors and children | "
     "Mild soreness in the arm is normal | COVID boosters available too | "
     "Protect yourself before the winter season | Nurses on site all morning"),
    ("charity work helping hungry people",
     "Volunteer shift at the food bank | Sorting donations on Sunday, 8 to 11 | "
     "Wear closed shoes, gloves provided | Canned goods, pasta and rice to pack for families | "
     "About 300 boxes go out this week | Meals for the shelter on Thursday | "
     "Donate online or drop food at the door | Coffee for volunteers in the back room"),
    ("mountain trek with lots of ascent",
     "Hiking route: Eagle Peak | 14 km loop, 900 m climb | "
     "Start at the north trailhead, bring two liters of water | Summit views, steep last section | "
     "Allow 6 hours round trip | Boots with good grip recommended | "
     "Rocky ridge above the tree line | Cairns mark the path"),
    ("chores list for housemates",
     "Cleaning rota this week | Sam vacuums, Jo does the bathroom | "
     "I take out the trash and wipe the kitchen counters | Dishes: whoever cooks does not wash | "
     "Fridge clear-out on Sunday | Mop the hallway and dust the shelves | "
     "Swap jobs every Monday | Buy more sponges"),
    ("broadband connection down, provider repairing",
     "Service outage in your area | Internet and TV are interrupted | "
     "Our engineers are working on it | Estimated fix by 4 pm | "
     "A fiber cable was cut near the substation | Restart your router once it is back | "
     "Customers get a credit for the lost hours | We apologize for the inconvenience"),
    ("sampling Italian vino event",
     "Wine tasting at Castello Verde | Six reds from Tuscany: Chianti, Brunello, Montepulciano | "
     "Saturday 5 pm, tickets $35 with a cheese plate | Guided by the winemaker | "
     "Swirl, sniff and sip: notes of cherry and oak | Bottles at 15% off after the tasting | "
     "The vineyard tour starts at 4 | Book a table for the dinner after"),
    ("creative hobby course with colours at night",
     "Oil painting workshop | Bring brushes, canvas and easels provided | "
     "Thursdays 7 to 9 pm at the community art center | This week: landscapes in acrylic and oil | "
     "Mixing paints and palette knife technique | Aprons recommended | "
     "Students show their work in June | Beginners welcome"),
    ("kitchen appliance fault, technician coming",
     "Dishwasher broken again | Error E24, water not draining | "
     "Filter cleaned, still not working | Repair appointment Tuesday between 1 and 5 | "
     "Bosch model SMS46, bought in 2019 | Warranty ends next month | "
     "The pump may need replacing | Wash dishes by hand until then"),
    ("catching up over espresso about a career opening",
     "Coffee with Maya | Blue Bottle on 5th Street, 10:30 tomorrow | "
     "She wants to talk about the design role on her team | Bring the portfolio and questions about salary | "
     "Her team is hiring two designers | Latte on me | "
     "Interview process: two rounds | She leads the product studio"),
    ("consular hearing to get permission to enter a foreign country",
     "Visa interview at the embassy | March 12 at 9:00, window 4 | "
     "Bring bank statements and the appointment letter | Photos 2 x 2 inches, white background | "
     "Fee receipt and passport required | Questions about your trip, job and ties at home | "
     "Student and work visas on the second floor | No phones allowed inside"),
    ("party for an expecting mother",
     "Baby shower for Lena | Sunday at 2 pm, theme: woodland animals | "
     "Gift registry link in the invite | Games, cupcakes and lemonade | "
     "She is due in June, it's a girl | Diapers always welcome | "
     "Guess the baby's weight | Onesies and a stroller on the registry"),
    ("board game competition with kings and pawns",
     "Chess club tournament | Saturday, 5 rounds of 15 minutes each | "
     "Registration closes Thursday, $10 entry | Bring your own clock if you have one | "
     "Openings, checkmate puzzles and rook endings | Prizes for the top three | "
     "Grandmaster simul at noon | Rated matches, open to all ages"),
    ("washing clothes instructions",
     "Laundry notes | Whites at 60 degrees, colors at 30 | "
     "Wool sweater by hand, no dryer, dry it flat | Shirts on a hanger to avoid ironing | "
     "Out of detergent and fabric softener | Towels need a second spin | "
     "Socks and underwear on the hot cycle | Separate the jeans"),
    ("kids' spooky outfits for the October 31 festivities",
     "Halloween costumes | Max wants to be a dinosaur, Ella a witch | "
     "Trick-or-treating starts at 6 | Pumpkin carving on Saturday | "
     "Buy candy for the door | Face paint and a broom from the store | "
     "Ghosts and skeletons on the porch | The school parade is on the 31st"),
    ("farewell celebration for a colleague who stops working",
     "Retirement party for Dave | Friday 4 pm in the cafeteria, after 32 years with the company | "
     "Chip in for the gift by Wednesday, a fishing rod | Short speeches by his old team, cake and drinks | "
     "His last day is the end of the month | He plans to travel and golf | "
     "A slideshow of his years here | Sign the big card at reception"),
]
TOPICS: list[tuple[tuple[str, ...], str]] = [(tuple(line.strip() for line in text.split("|")), query) for query, text in TOPICS_RAW]
def topics_check() -> list[str]:
    """Problems with TOPICS: repeats, lines too long for a screen, paraphrases sharing words
    with their topic (see bench.quality.queries.shared_words) or with the filler text (the same stem). Empty when it is sound."""
    problems = []
    if len({query for _, query in TOPICS}) != len(TOPICS) or len({lines for lines, _ in TOPICS}) != len(TOPICS):
        problems.append("repeated topic or query")
    filler = {word_stem(w) for w in EN_WORDS}
    for lines, query in TOPICS:
        if not 6 <= len(lines) <= 10 or any(len(line) > 80 for line in lines):
            problems.append(f"{query!r}: 6-10 lines of at most 80 characters")
        if shared := shared_words(query, "\n".join(lines)):
            problems.append(f"{query!r} shares {sorted(shared)} with its topic")
        if shared := {w for w in EN_TOKEN.findall(query.lower()) if w not in STOPWORDS and word_stem(w) in filler}:
            problems.append(f"{query!r} shares {sorted(shared)} with the screens' filler text")
    return problems


@dataclass
class BenchFrame:
    index: int
    action: str
    word: str  # typed into this frame, drawn nowhere before it
    app_name: str
    window_name: str
    browser_url: str
    drawn_text: str
    png: bytes
    posted_at: float = 0.0
    post_s: float = 0.0
    status: str = ""
    frame_id: int | None = None
    searchable_s: float | None = None
    found_in: int | None = None
    topic: tuple[str, ...] = ()  # drawn on this frame alone (none past the last of TOPICS)
    query: str = ""  # its paraphrase
    meaning_s: float | None = None  # POST to the paraphrase finding this frame (mode=semantic)
    vectors_s: float | None = None  # POST to its search_framevectors row leaving 'pending'
    vectors_status: str = ""  # that row's status then ("" when it never left 'pending' in time)


@dataclass
class MeaningStats:
    """The semantic searches of the paced run (watchers run in threads)."""

    requests: int = 0
    degraded: Counter = field(default_factory=Counter)  # reason -> responses
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, degraded: str | None) -> None:
        with self.lock:
            self.requests += 1
            if degraded:
                self.degraded[degraded] += 1


@dataclass
class MeaningCheck:
    """Per frame with a topic, from its OCR text after the run: the share of the topic's words OCR
    read back, the paraphrase's cosine similarity to the frame's text as the worker embeds it
    (its best chunk), and how much more it draws that chunk than everyday questions do (z,
    search.relevance: what decides whether search by meaning returns the frame)."""

    topic_recall: dict[int, float] = field(default_factory=dict)
    similarity: dict[int, float] = field(default_factory=dict)
    z: dict[int, float] = field(default_factory=dict)
    z_first: float = float("nan")  # a frame alone in its range is returned from this z (search.relevance)
    load_s: float = float("nan")


@dataclass
class RunFigures:
    frames: list[BenchFrame] = field(default_factory=list)
    table_bytes: dict[str, int] = field(default_factory=dict)
    image_bytes: list[int] = field(default_factory=list)
    ocr_rows: list[tuple[int, float, str, int]] = field(default_factory=list)  # elapsed_ms, ocr_area, text, frame_id
    burst: dict[int, tuple[float, list[float], Counter]] = field(default_factory=dict)
    load_paced: list[float] = field(default_factory=list)  # 1-minute load average when (b) began and ended
    meaning: MeaningStats = field(default_factory=MeaningStats)
    meaning_check: MeaningCheck = field(default_factory=MeaningCheck)
    warm_up: dict[str, float | str | None] = field(default_factory=dict)  # see embedder_warm_up


def word_make(rng: random.Random, taken: set[str]) -> str:
    """A pronounceable word no screen draws (no l or i, which OCR confuses with 1 and I)."""
    while True:
        word = "".join(rng.choice("bdfgkmnprstvz") + rng.choice("aeou") for _ in range(rng.randint(3, 4)))
        if word not in taken:
            taken.add(word)
            return word


def screen_type(screen: Screen, rng: random.Random, word: str) -> None:
    """Type the word at the end of a visible line (or on a new line when that one is long)."""
    rows = rows_for(screen.kind)
    row = min(screen.scroll + rng.randint(0, rows - 1), len(screen.lines) - 1)
    if len(screen.lines[row]) < 80:
        screen.lines[row] += " " + word
    else:
        screen.lines.insert(row + 1, word)


def screen_topic(screen: Screen, rng: random.Random, word: str, topic: tuple[str, ...]) -> None:
    """Write the topic's lines (a blank line either side) over visible lines of the window, at a
    random place that leaves the typed word where it is. It stays in the window's document, as a
    message received or a note written would: the next capture of this window changes only where
    its own topic goes, so the worker's incremental OCR re-reads about as much as a real new
    message needs (a topic gone again by the next frame would double that). Lines are replaced,
    not inserted, so nothing else on the screen moves."""
    topic = ("", *topic, "")
    rows = rows_for(screen.kind)
    first, end = screen.scroll, min(screen.scroll + rows, len(screen.lines))
    word_rows = [row for row in range(first, end) if word in screen.lines[row].split()]
    starts = [row for row in range(first, end - len(topic) + 1) if not any(row <= w < row + len(topic) for w in word_rows)]
    start = rng.choice(starts)
    screen.lines[start : start + len(topic)] = topic


def screen_text(screen: Screen) -> str:
    parts = [f"{screen.app_name} - {screen.window_name}", screen.browser_url, *screen.visible_lines(rows_for(screen.kind))]
    return "\n".join(p for p in parts if p)


def frames_render(*, count: int, seed: int, topics: bool = True) -> list[BenchFrame]:
    """The session's frames, each with its typed word and (while TOPICS last) its own topic. Topics
    are picked and placed with a random generator of their own, so the session takes the same steps
    and types the same words as without them; without topics the frames are those of the bench
    before it measured meaning, byte for byte."""
    rng = random.Random(seed)
    topic_rng = random.Random(f"{seed}-topics")
    shown = list(TOPICS) if topics else []
    topic_rng.shuffle(shown)
    taken: set[str] = set()
    frames = []
    for index, (screen, action) in enumerate(tqdm(session(rng, count), total=count, desc="render", unit="frame")):
        word = word_make(rng, taken)
        screen_type(screen, rng, word)
        topic, query = shown[index] if index < len(shown) else ((), "")
        if topic:
            screen_topic(screen, topic_rng, word, topic)
        out = io.BytesIO()
        render(screen).save(out, format="PNG")
        frames.append(
            BenchFrame(
                index=index, action=action, word=word, app_name=screen.app_name, window_name=screen.window_name,
                browser_url=screen.browser_url, drawn_text=screen_text(screen), png=out.getvalue(), topic=topic, query=query,
            )
        )
    return frames


def frame_post(http: requests.Session, server: LiveServer, frame: BenchFrame, *, device_name: str) -> tuple[int, dict]:
    resp = http.post(
        server.url + "/api/v1/frames",
        files={"image": (f"{frame.index}.png", frame.png, "image/png")},
        data={
            "timestamp": time.time(), "app_name": frame.app_name, "window_name": frame.window_name,
            "browser_url": frame.browser_url, "focused": "true", "device_name": device_name,
        },
        timeout=60,
    )
    return resp.status_code, resp.json()


def search_wait(server: LiveServer, frame: BenchFrame, *, since: float, timeout_s: float) -> None:
    """Poll keyword search for the frame's word until a hit, recording when and in which frame.

    For a stored frame, HTTP polling starts once the database says its OCR is no longer
    pending (checked every 100 ms, read-only): the index is written in the same
    transaction, so nothing is missed, and a backlog of frames polling the web server
    ten times a second each would steal the CPU the worker needs.
    """
    http = requests.Session()
    http.headers.update(server.session.headers)
    if frame.status == "created":
        interval = POLL_STORED_S
        with db_connect(server) as db:
            while time.time() - frame.posted_at < timeout_s:
                row = db.execute("SELECT ocr_status FROM frames_frame WHERE id = ?", [frame.frame_id]).fetchone()
                if row and row[0] != "pending":
                    break
                time.sleep(POLL_STORED_S)
    else:
        interval = POLL_SKIPPED_S
    while time.time() - frame.posted_at < timeout_s:
        resp = http.get(
            server.url + "/api/v1/search",
            params={"q": frame.word, "start_time": since, "mode": "keyword", "limit": 5},
            timeout=30,
        )
        hits = resp.json().get("data", []) if resp.ok else []
        if hits:
            frame.searchable_s = time.time() - frame.posted_at
            ids = [hit["content"]["frame_id"] for hit in hits]
            frame.found_in = frame.frame_id if frame.frame_id in ids else min(ids)
            return
        time.sleep(interval)


def meaning_wait(server: LiveServer, frame: BenchFrame, *, timeout_s: float, stats: MeaningStats) -> None:
    """Poll semantic search for the frame's paraphrase until the frame is among the hits, recording
    when. Only this frame and later ones are candidates (start_time just before its POST), so this
    measures how soon it is indexed, not how well it ranks (bench/search_quality.py does that).

    HTTP polling starts once the database says the frame's vector row is no longer pending (checked
    every 100 ms, read-only; the vectors are written before the row is marked done), then every 100
    ms for a second and every second after that: a frame still missing then is one the paraphrase
    does not reach, and polling it fast would only take CPU from the worker. Hits only count from a
    response that is not degraded (a degraded one is keyword search answering instead)."""
    http = requests.Session()
    http.headers.update(server.session.headers)
    with db_connect(server) as db:
        while time.time() - frame.posted_at < timeout_s:
            row = db.execute("SELECT status FROM search_framevectors WHERE frame_id = ?", [frame.frame_id]).fetchone()
            if row and row[0] != "pending":
                frame.vectors_s = time.time() - frame.posted_at
                frame.vectors_status = row[0]
                break
            if not row:
                ocr = db.execute("SELECT ocr_status FROM frames_frame WHERE id = ?", [frame.frame_id]).fetchone()
                if ocr and ocr[0] == "failed":
                    break  # no text, no vectors: poll gently until the timeout, to be sure
            time.sleep(POLL_STORED_S)
    ready_at = time.time()
    while time.time() - frame.posted_at < timeout_s:
        try:
            resp = http.get(
                server.url + "/api/v1/search",
                params={"q": frame.query, "start_time": frame.posted_at - 0.5, "mode": "semantic", "limit": 10},
                timeout=30,
            )
        except requests.RequestException as exc:
            stats.count(f"request failed: {type(exc).__name__}")
            time.sleep(POLL_SKIPPED_S)
            continue
        body = resp.json() if resp.ok else {}
        stats.count(body.get("degraded") or (None if resp.ok else f"HTTP {resp.status_code}"))
        if resp.ok and not body.get("degraded"):
            ids = [hit["content"]["frame_id"] for hit in body.get("data", []) if "semantic" in hit["content"].get("matched", [])]
            if frame.frame_id in ids:
                frame.meaning_s = time.time() - frame.posted_at
                return
        time.sleep(POLL_STORED_S if time.time() - ready_at < 1 else POLL_SKIPPED_S)


def embedder_warm_up(server: LiveServer, *, timeout_s: float = 60) -> dict[str, float | str | None]:
    """Wait until both processes that embed have their model loaded: the web server loads it in the
    background at start (a semantic search answers `degraded` until then), and the worker loads it
    at start before taking its first task, after the OCR engine LiveServer waits for (without this
    wait, with or without topics, the first frame's OCR waits for that load and the keyword figure
    measures the worker's start-up, not ingest). Returns the
    seconds each took from now (None: not within timeout_s; the run goes on and counts degraded),
    and the worker's line about it."""
    started = time.time()
    ready: dict[str, float | str | None] = {"web": None, "worker": None, "worker_line": ""}
    while time.time() - started < timeout_s and (ready["web"] is None or ready["worker"] is None):
        line = next((line for line in server.log_path.read_text().splitlines() if line.startswith("[worker] embedder ")), None)
        if ready["worker"] is None and line:
            ready["worker"], ready["worker_line"] = time.time() - started, line.removeprefix("[worker] ")
        if ready["web"] is None:
            try:
                resp = server.session.get(
                    server.url + "/api/v1/search",
                    params={"q": "warm up", "start_time": time.time() - 60, "mode": "semantic", "limit": 1},
                    timeout=30,
                )
                if resp.ok and resp.json().get("degraded") is None:
                    ready["web"] = time.time() - started
            except requests.RequestException:
                pass
        time.sleep(1.0)
    return ready


def db_connect(server: LiveServer) -> ReadOnlyDb:
    """A read-only look at the server's database (its SQLite file, or the PostgreSQL its DATABASE_URL
    names), queries written with ? placeholders."""
    return ReadOnlyDb(data_dir=server.data_dir, env=server.env)


def db_table_bytes(server: LiveServer) -> dict[str, int]:
    """Bytes per table (its indexes included) from dbstat; {"(file size)": n} where dbstat is missing.
    On PostgreSQL, pg_total_relation_size (indexes and TOAST included)."""
    with db_connect(server) as db:
        if db.postgres:
            return table_bytes_pg(db)
        try:
            rows = db.execute(
                "SELECT coalesce(s.tbl_name, d.name), sum(d.pgsize) FROM dbstat d "
                "LEFT JOIN sqlite_schema s ON s.name = d.name GROUP BY 1"
            ).fetchall()
        except sqlite3.OperationalError:
            db_path = server.data_dir / SQLITE_NAME
            wal = db_path.with_name(db_path.name + "-wal")
            return {"(file size)": db_path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)}
    return dict(rows)


def ocr_drain_wait(server: LiveServer, frame_ids: list[int], *, timeout_s: float) -> int:
    """Wait until the worker has finished every listed frame; returns how many are still pending."""
    marks = ",".join("?" * len(frame_ids))
    deadline = time.time() + timeout_s
    while True:
        with db_connect(server) as db:
            pending = db.execute(
                f"SELECT count(*) FROM frames_frame WHERE id IN ({marks}) AND ocr_status = 'pending'", frame_ids
            ).fetchone()[0]
        if not pending or time.time() > deadline:
            return pending
        time.sleep(0.5)


def paced_run(server: LiveServer, frames: list[BenchFrame], *, interval_s: float, timeout_s: float, figures: RunFigures) -> None:
    before = db_table_bytes(server)
    figures.load_paced = [os.getloadavg()[0]]
    started = time.time()
    watchers = []
    for frame in tqdm(frames, desc="(b) paced", unit="frame"):
        time.sleep(max(started + frame.index * interval_s - time.time(), 0))
        frame.posted_at = time.time()
        code, body = frame_post(server.session, server, frame, device_name="paced")
        frame.post_s = time.time() - frame.posted_at
        frame.status = body.get("status", f"HTTP {code}")
        frame.frame_id = body.get("frame_id")
        watcher = threading.Thread(target=search_wait, args=(server, frame), kwargs={"since": started - 1, "timeout_s": timeout_s})
        watcher.start()
        watchers.append(watcher)
        if frame.status == "created" and frame.topic:
            watcher = threading.Thread(
                target=meaning_wait, args=(server, frame), kwargs={"timeout_s": timeout_s, "stats": figures.meaning}
            )
            watcher.start()
            watchers.append(watcher)
    figures.load_paced.append(os.getloadavg()[0])
    for watcher in watchers:
        watcher.join()
    stored = [f.frame_id for f in frames if f.status == "created"]
    pending = ocr_drain_wait(server, stored, timeout_s=120)
    if pending:
        print(f"warning: {pending} paced frames still wait for OCR; their bytes are not all counted")
    after = db_table_bytes(server)
    figures.table_bytes = {name: after[name] - before.get(name, 0) for name in after if after[name] != before.get(name, 0)}
    marks = ",".join("?" * len(stored))
    with db_connect(server) as db:
        paths = [row[0] for row in db.execute(f"SELECT image_path FROM frames_frame WHERE id IN ({marks})", stored)]
        figures.ocr_rows = [
            (elapsed, area, text_unpack(text) if isinstance(text, bytes) else text, frame_id)  # a long text is stored packed
            for elapsed, area, text, frame_id in db.execute(
                f"SELECT elapsed_ms, ocr_area, text, frame_id FROM frames_ocrresult WHERE frame_id IN ({marks})", stored
            )
        ]
    figures.image_bytes = [(server.data_dir / path).stat().st_size for path in paths]


def burst_run(server: LiveServer, frames: list[BenchFrame], *, clients: int) -> tuple[float, list[float], Counter]:
    """Frames/s accepted, POST latencies and statuses, with `clients` posting at once."""
    local = threading.local()

    def post(frame: BenchFrame) -> tuple[float, str]:
        if not hasattr(local, "http"):
            local.http = requests.Session()
            local.http.headers.update(server.session.headers)
        sent = time.time()
        code, body = frame_post(local.http, server, frame, device_name=f"burst-{clients}-{frame.index}")
        return time.time() - sent, body.get("status", f"HTTP {code}")

    started = time.time()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        results = list(tqdm(pool.map(post, frames), total=len(frames), desc=f"(a) burst x{clients}", unit="frame"))
    elapsed = time.time() - started
    statuses = Counter(status for _, status in results)
    return statuses["created"] / elapsed, [latency for latency, _ in results], statuses


@dataclass
class ImportRun:
    """Case (e): live frames posted while a folder of screenshots is imported and read."""

    folder_frames: int = 0
    stored: int = 0
    import_s: float = float("nan")  # the import command, start to end
    live_began: float = 0.0
    live_ended: float = 0.0
    # (time, import frames stored, import frames read) every IMPORT_SAMPLE_S from the import's start
    samples: list[tuple[float, int, int]] = field(default_factory=list)
    drained_at: float | None = None  # when the last import frame was read (None: not within the drain timeout)
    turns: int = 0  # tasks moved to the front after waiting MYRECALL_TASK_TURN_S
    ocr_live: list[float] = field(default_factory=list)  # worker OCR seconds per live frame
    ocr_import: list[float] = field(default_factory=list)
    load: list[float] = field(default_factory=list)


def import_folder_write(folder: Path, *, count: int, seed: int) -> int:
    """`count` screenshots of a working session, one every IMPORT_STEP steps, with a sidecar each
    (taken yesterday, 30 s apart), none a near-duplicate of the one before, so the import stores
    every one; returns how many."""
    from django.conf import settings

    from frames.imaging import hash_distance, image_hash

    start = time.time() - 86400
    previous, written = None, 0
    with tqdm(total=count, desc="(e) import folder", unit="frame") as bar:
        for step, (screen, _) in enumerate(session(random.Random(f"{seed}-import"), count * IMPORT_STEP * 2)):
            if step % IMPORT_STEP:
                continue
            image = render(screen)
            signature = image_hash(image)
            if previous is not None and hash_distance(previous, signature) <= settings.DEDUP_MAX_DISTANCE:
                continue
            previous = signature
            name = f"{written:05d}"
            image.save(folder / f"{name}.png")
            sidecar = {"timestamp": start + 30 * written, "app_name": screen.app_name, "window_name": screen.window_name,
                       "browser_url": screen.browser_url, "focused": True}
            (folder / f"{name}.json").write_text(json.dumps(sidecar))
            written += 1
            bar.update()
            if written == count:
                break
    return written


def import_counts(server: LiveServer) -> tuple[int, int]:
    """(import frames stored, import frames read) now."""
    with db_connect(server) as db:
        return db.execute(
            "SELECT count(*), coalesce(sum(CASE WHEN ocr_status != 'pending' THEN 1 ELSE 0 END), 0) FROM frames_frame "
            "WHERE device_name = ?", [IMPORT_DEVICE]
        ).fetchone()


def vectors_wait(server: LiveServer, frame: BenchFrame, *, timeout_s: float) -> None:
    """Poll the database until the frame's vector row leaves 'pending', recording when."""
    with db_connect(server) as db:
        while time.time() - frame.posted_at < timeout_s:
            row = db.execute("SELECT status FROM search_framevectors WHERE frame_id = ?", [frame.frame_id]).fetchone()
            if row and row[0] != "pending":
                frame.vectors_s, frame.vectors_status = time.time() - frame.posted_at, row[0]
                return
            time.sleep(POLL_STORED_S)


def during_import_run(
    server: LiveServer, live: list[BenchFrame], folder: Path, *, interval_s: float, timeout_s: float, drain_timeout_s: float, run: ImportRun
) -> None:
    began = time.time()
    importing = subprocess.Popen(
        [sys.executable, "manage.py", "frames_import", str(folder), "--device-name", IMPORT_DEVICE],
        cwd=REPO, env=server.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    sampling = threading.Event()

    def sample() -> None:
        while not sampling.is_set():
            run.samples.append((time.time(), *import_counts(server)))
            sampling.wait(IMPORT_SAMPLE_S)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        while import_counts(server)[0] < 10 and importing.poll() is None:
            time.sleep(0.2)
        run.load = [os.getloadavg()[0]]
        run.live_began = time.time()
        watchers = []
        for frame in tqdm(live, desc="(e) live frames", unit="frame"):
            time.sleep(max(run.live_began + frame.index * interval_s - time.time(), 0))
            frame.posted_at = time.time()
            code, body = frame_post(server.session, server, frame, device_name=LIVE_DEVICE)
            frame.post_s = time.time() - frame.posted_at
            frame.status = body.get("status", f"HTTP {code}")
            frame.frame_id = body.get("frame_id")
            started = [threading.Thread(target=search_wait, args=(server, frame), kwargs={"since": run.live_began - 1, "timeout_s": timeout_s})]
            if frame.status == "created":
                started.append(threading.Thread(target=vectors_wait, args=(server, frame), kwargs={"timeout_s": timeout_s}))
            for watcher in started:
                watcher.start()
            watchers += started
        run.live_ended = time.time()
        run.load.append(os.getloadavg()[0])
        for watcher in watchers:
            watcher.join()
        output, _ = importing.communicate()
        run.import_s = time.time() - began
        if importing.returncode:
            sys.exit(f"the import failed ({importing.returncode}):\n{output}")
        deadline = time.time() + drain_timeout_s
        with tqdm(desc="(e) import drain", unit="frame") as bar:
            while time.time() < deadline:
                stored, read = import_counts(server)
                bar.total, bar.n = stored, read
                bar.refresh()
                if read == stored:
                    run.drained_at = time.time()
                    break
                time.sleep(1.0)
    finally:
        sampling.set()
        sampler.join()
        if importing.poll() is None:
            importing.kill()
            importing.wait()
    run.stored = import_counts(server)[0]
    with db_connect(server) as db:
        run.turns = db.execute("SELECT count(*) FROM django_tasks_database_dbtaskresult WHERE priority = 100").fetchone()[0]
        for device, into in ((LIVE_DEVICE, run.ocr_live), (IMPORT_DEVICE, run.ocr_import)):
            into += [row[0] / 1000 for row in db.execute(
                "SELECT o.elapsed_ms FROM frames_ocrresult o JOIN frames_frame f ON f.id = o.frame_id WHERE f.device_name = ?", [device]
            )]


def _read_at(run: ImportRun, moment: float) -> tuple[int, int]:
    """(stored, read) of the import at the last sample taken by `moment`."""
    taken = [(stored, read) for at, stored, read in run.samples if at <= moment]
    return taken[-1] if taken else (0, 0)


def _backlog_at(run: ImportRun, moment: float) -> int:
    stored, read = _read_at(run, moment)
    return stored - read


def during_import_report(args, run: ImportRun, live: list[BenchFrame]) -> None:
    stored = [f for f in live if f.status == "created"]
    skipped = [f for f in live if f.status == "duplicate"]
    print()
    print(f"MyRecall ingest bench, (e) live frames during an import: {run.folder_frames} screenshots 1920x1080 imported "
          f"(manage.py frames_import, taken yesterday), seed {args.seed}, {os.cpu_count()} cores; "
          f"1-min load average {' -> '.join(f'{v:.1f}' for v in run.load)} over the live phase")
    print(f"code: {code_state()}")
    if args.database == "postgres":
        print(f"database: PostgreSQL ({args.pg_description})")
    peak = max((_backlog_at(run, at) for at, _, _ in run.samples), default=0)
    print(f"    import: {run.stored} stored, the command took {run.import_s:.0f} s; OCR backlog of imported frames at most {peak}")
    live_s = run.live_ended - run.live_began
    behind = sum(1 for f in live if _backlog_at(run, f.posted_at) > 0)
    print(f"    live frames: one every {args.interval:g} s on device '{LIVE_DEVICE}' for {live_s:.0f} s: stored {len(stored)}, "
          f"skipped as near-duplicates {len(skipped)}; posted while imported frames waited for OCR: {behind}")
    times = [f.searchable_s for f in stored]
    found = [t for t in times if t is not None]
    p95 = pct_censored(times, 95)
    print(f"    time-to-searchable of a live frame's new word: p50 {seconds_text(pct_censored(times, 50))}, "
          f"p95 {seconds_text(p95)}, max found {max(found, default=float('nan')):.2f} s, not found within {args.timeout:g} s: "
          f"{len(times) - len(found)}  [goal p95 <= {GOAL_SEARCHABLE_P95_S:g} s: {verdict(p95 <= GOAL_SEARCHABLE_P95_S)}]")
    vectors = [f.vectors_s for f in stored]
    print(f"    its vectors written (database) after: p50 {seconds_text(pct_censored(vectors, 50))}, p95 {seconds_text(pct_censored(vectors, 95))}")
    print(f"    worker OCR s/frame: live p50 {pct(run.ocr_live, 50):.2f}, p95 {pct(run.ocr_live, 95):.2f}; "
          f"imported p50 {pct(run.ocr_import, 50):.2f}, p95 {pct(run.ocr_import, 95):.2f}")
    stored_then, read_before = _read_at(run, run.live_began)
    stored_end, read_after = _read_at(run, run.live_ended)
    during = read_after - read_before
    print(f"    imported frames read during the live phase: {during} ({during / max(live_s, 1e-9) * 60:.1f}/min; "
          f"{stored_end - read_after} of the {stored_end} stored by its end still to read)")
    if run.drained_at is None:
        print(f"    the import was not read to its end within {args.drain_timeout:g} s of the import command's end")
    else:
        after = run.drained_at - run.live_ended
        left = stored_end - read_after + (run.stored - stored_end)
        print(f"    the rest ({left} frames) was read {after:.0f} s after the live phase ended ({left / max(after, 1e-9):.2f} frames/s); "
              f"import start to last frame read {run.drained_at - run.samples[0][0]:.0f} s")
    from django.conf import settings

    print(f"    tasks given a turn after waiting MYRECALL_TASK_TURN_S ({settings.TASK_TURN_S:g} s) while only higher ones ran: {run.turns}")


def during_import_main(args, work: Path, server_env: dict[str, str]) -> None:
    folder = work / "screenshots"
    folder.mkdir()
    run = ImportRun(folder_frames=import_folder_write(folder, count=args.during_import, seed=args.seed))
    live = frames_render(count=args.live_frames, seed=args.seed, topics=False)
    print("starting serve ...", flush=True)
    with LiveServer(work / "data", env=server_env) as server:
        print("waiting for the embedders to load ...", flush=True)
        embedder_warm_up(server)
        during_import_run(
            server, live, folder, interval_s=args.interval, timeout_s=args.timeout, drain_timeout_s=args.drain_timeout, run=run
        )
    during_import_report(args, run, live)


# (w) Worker scaling ------------------------------------------------------------------------------


@dataclass
class WorkersRun:
    """One burst with `workers` worker processes: every frame posted at once, each on its own device
    (no near-duplicate skip, no incremental OCR: a full read of each screen), timed to its OCR done
    (its words searchable: the keyword index is written in the same transaction)."""

    workers: int
    posted: int = 0
    stored: int = 0
    statuses: Counter = field(default_factory=Counter)
    post_s: float = float("nan")  # first POST sent to last answered
    done_s: float = float("nan")  # first POST sent to the last frame's OCR over (nan: not within the timeout)
    failed: int = 0
    ocr_s: list[float] = field(default_factory=list)  # the worker's OcrResult.elapsed_ms, per frame
    vectors_by_done: int = 0  # frames whose vectors were written by the time OCR was over
    vectors_s: float = float("nan")  # first POST to every frame's vectors written
    cpu_s: dict[str, float] = field(default_factory=dict)  # CPU seconds by role, first POST to OCR over
    table_bytes: dict[str, int] = field(default_factory=dict)
    image_bytes: list[int] = field(default_factory=list)
    load: list[float] = field(default_factory=list)


def _die_with_parent() -> None:
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, 15)  # PR_SET_PDEATHSIG, SIGTERM: no orphan if the bench dies


def worker_start(server: LiveServer, number: int) -> tuple[subprocess.Popen, Path]:
    """Another `manage.py worker` on the server's data dir and database, as on another machine or in
    another terminal; its output in a log file of its own."""
    log_path = server.data_dir / f"worker-{number}.log"
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "worker"], cwd=REPO, env=server.env, stdout=log, stderr=subprocess.STDOUT,
        preexec_fn=_die_with_parent,
    )
    log.close()
    return proc, log_path


def workers_ready_wait(extra: list[tuple[subprocess.Popen, Path]], *, timeout_s: float = 180) -> None:
    deadline = time.time() + timeout_s
    for proc, log_path in extra:
        while WORKER_READY not in log_path.read_text():
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"a worker did not start (exit {proc.poll()}):\n{log_path.read_text()[-3000:]}")
            time.sleep(0.3)


def workers_stop(extra: list[tuple[subprocess.Popen, Path]]) -> None:
    for proc, _ in extra:
        if proc.poll() is None:
            proc.terminate()
    for proc, _ in extra:
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def cpu_seconds(pid: int, *, reaped: bool = False) -> float:
    """User + system CPU seconds of a process so far (0 when it is gone); with reaped, also those of
    its children that ended and were waited for."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12]) + (int(fields[13]) + int(fields[14]) if reaped else 0)
    return ticks / os.sysconf("SC_CLK_TCK")


def cpu_by_role(server: LiveServer, extra: list[tuple[subprocess.Popen, Path]], pg: BenchPostgres | None) -> dict[str, float]:
    """CPU seconds so far of the app's processes by role. PostgreSQL's: the postmaster with the
    backends it reaped and those alive now (a backend per connection comes and goes)."""
    from myrecall.shutdown import process_descendants

    totals: dict[str, float] = {}
    for pid, role in processes_by_role(server, extra).items():
        totals[role] = totals.get(role, 0.0) + cpu_seconds(pid)
    if pg is not None and pg.proc is not None:
        totals["PostgreSQL"] = cpu_seconds(pg.proc.pid, reaped=True) + sum(cpu_seconds(pid) for pid in process_descendants(pg.proc.pid))
    return totals


def processes_by_role(server: LiveServer, extra: list[tuple[subprocess.Popen, Path]]) -> dict[int, str]:
    from myrecall.shutdown import process_descendants

    roles = {}
    for pid in process_descendants(server.proc.pid):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        roles[pid] = ("web" if b"myrecall.web" in argv else "worker" if b"worker" in argv
                      else "vector server" if b"vector_server" in argv else "other")
    for proc, _ in extra:
        roles[proc.pid] = "worker"
    return roles


def workers_burst(
    server: LiveServer, frames: list[BenchFrame], *, workers: int, clients: int, timeout_s: float,
    extra: list[tuple[subprocess.Popen, Path]], pg: BenchPostgres | None,
) -> WorkersRun:
    run = WorkersRun(workers=workers)
    before = db_table_bytes(server)
    cpu_before = cpu_by_role(server, extra, pg)
    local = threading.local()

    def post(frame: BenchFrame) -> tuple[str, int | None]:
        if not hasattr(local, "http"):
            local.http = requests.Session()
            local.http.headers.update(server.session.headers)
        code, body = frame_post(local.http, server, frame, device_name=f"workers-{workers}-{frame.index}")
        return body.get("status", f"HTTP {code}"), body.get("frame_id")

    run.load = [os.getloadavg()[0]]
    started = time.time()
    with ThreadPoolExecutor(max_workers=clients) as pool:
        results = list(tqdm(pool.map(post, frames), total=len(frames), desc=f"(w) POST, {workers} worker(s)", unit="frame"))
    run.post_s = time.time() - started
    run.posted = len(results)
    run.statuses = Counter(status for status, _ in results)
    ids = [frame_id for status, frame_id in results if status == "created" and frame_id]
    run.stored = len(ids)
    marks = ",".join("?" * len(ids))
    with db_connect(server) as db, tqdm(total=len(ids), desc=f"(w) OCR, {workers} worker(s)", unit="frame") as bar:
        while time.time() - started < timeout_s:
            pending = db.execute(f"SELECT count(*) FROM frames_frame WHERE id IN ({marks}) AND ocr_status = 'pending'", ids).fetchone()[0]
            bar.n = len(ids) - pending
            bar.refresh()
            if not pending:
                run.done_s = time.time() - started
                break
            time.sleep(0.25)
        cpu_after = cpu_by_role(server, extra, pg)
        run.load.append(os.getloadavg()[0])
        run.cpu_s = {role: max(seconds - cpu_before.get(role, 0.0), 0.0) for role, seconds in cpu_after.items()}
        run.vectors_by_done = db.execute(
            f"SELECT count(*) FROM search_framevectors WHERE frame_id IN ({marks}) AND status = 'done'", ids
        ).fetchone()[0]
        run.failed = db.execute(f"SELECT count(*) FROM frames_frame WHERE id IN ({marks}) AND ocr_status = 'failed'", ids).fetchone()[0]
        run.ocr_s = [row[0] / 1000 for row in db.execute(f"SELECT elapsed_ms FROM frames_ocrresult WHERE frame_id IN ({marks})", ids)]
        paths = [row[0] for row in db.execute(f"SELECT image_path FROM frames_frame WHERE id IN ({marks})", ids)]
        # The embedding tasks that follow OCR: drained before the next burst (outside its time), timed from the first POST.
        with tqdm(total=len(ids), desc="(w) vectors", unit="frame", leave=False) as vbar:
            while time.time() - started < timeout_s:
                written = db.execute(
                    f"SELECT count(*) FROM search_framevectors WHERE frame_id IN ({marks}) AND status != 'pending'", ids
                ).fetchone()[0]
                vbar.n = written
                vbar.refresh()
                if written >= len(ids):
                    run.vectors_s = time.time() - started
                    break
                time.sleep(0.5)
    after = db_table_bytes(server)
    run.table_bytes = {name: after[name] - before.get(name, 0) for name in after if after[name] != before.get(name, 0)}
    run.image_bytes = [(server.data_dir / path).stat().st_size for path in paths]
    return run


def workers_warm_up(server: LiveServer, frames: list[BenchFrame], *, workers: int, timeout_s: float) -> None:
    """Two frames per worker, untimed, so each worker's first OCR (and embedding) is behind it; waited
    for until their vectors are written."""
    http = requests.Session()
    http.headers.update(server.session.headers)
    ids = []
    for frame in tqdm(frames, desc=f"(w) warm-up, {workers} worker(s)", unit="frame", leave=False):
        _, body = frame_post(http, server, frame, device_name=f"warm-up-{workers}-{frame.index}")
        if body.get("frame_id"):
            ids.append(body["frame_id"])
    marks = ",".join("?" * len(ids))
    deadline = time.time() + timeout_s
    with db_connect(server) as db:
        while ids and time.time() < deadline:
            left = db.execute(
                f"SELECT count(*) FROM frames_frame f LEFT JOIN search_framevectors v ON v.frame_id = f.id WHERE f.id IN ({marks}) "
                "AND (f.ocr_status = 'pending' OR v.status = 'pending')", ids
            ).fetchone()[0]
            if not left:
                return
            time.sleep(0.5)


def workers_main(args, work: Path, server_env: dict[str, str], pg: BenchPostgres | None) -> None:
    counts = sorted({int(c) for c in args.workers.split(",") if c.strip()})
    if not counts or counts[0] < 1:
        sys.exit("--workers takes worker counts of at least 1, e.g. 1,2,4")
    frames = frames_render(count=args.worker_frames, seed=args.seed, topics=not args.no_topics)
    print("starting serve ...", flush=True)
    runs: list[WorkersRun] = []
    with LiveServer(work / "data", env=server_env) as server:
        print("waiting for the embedders to load ...", flush=True)
        embedder_warm_up(server)
        extra: list[tuple[subprocess.Popen, Path]] = []
        try:
            for count in counts:
                while len(extra) < count - 1:  # serve runs one worker; the others are started beside it
                    extra.append(worker_start(server, len(extra) + 2))
                workers_ready_wait(extra)
                workers_warm_up(server, frames[: count * 2], workers=count, timeout_s=args.worker_timeout)
                runs.append(workers_burst(
                    server, frames, workers=count, clients=args.worker_clients, timeout_s=args.worker_timeout, extra=extra, pg=pg,
                ))
        finally:
            workers_stop(extra)
    workers_report(args, runs, pg)


def workers_report(args, runs: list[WorkersRun], pg: BenchPostgres | None) -> None:
    from django.conf import settings

    cores = os.cpu_count()
    database = f"PostgreSQL ({pg.describe()})" if pg else "SQLite (the data dir's file)"
    threads = os.environ.get("MYRECALL_OCR_THREADS", str(settings.OCR_THREADS))
    print()
    print(f"MyRecall ingest bench, (w) worker scaling: {args.worker_frames} frames 1920x1080 posted at once by "
          f"{args.worker_clients} clients, each frame its own device (nothing skipped as a near-duplicate, no incremental "
          f"OCR: every screen read in full), then timed until every one's OCR is over (its words searchable), with 1 to "
          f"{runs[-1].workers} `manage.py worker` processes (serve's own and more beside it), OCR threads per worker "
          f"{threads} (MYRECALL_OCR_THREADS), seed {args.seed}, {cores} cores")
    print(f"database: {database}")
    print(f"code: {code_state()}")
    print(f"  {'workers':>7} {'frames/s':>9} {'POST/s':>7} {'OCR s/frame p50/p95':>20} {'CPU-s/frame':>12} "
          f"{'cores busy':>11} {'vectors by then':>16} {'all vectors after':>18} {'load':>11}")
    for run in runs:
        rate = run.stored / run.done_s if run.done_s == run.done_s else float("nan")
        cpu = sum(run.cpu_s.values())
        print(f"  {run.workers:7} {rate:9.2f} {run.posted / run.post_s:7.1f} "
              f"{pct(run.ocr_s, 50):9.2f} / {pct(run.ocr_s, 95):6.2f} {cpu / max(run.stored, 1):12.2f} "
              f"{cpu / run.done_s if run.done_s == run.done_s else float('nan'):11.2f} "
              f"{run.vectors_by_done:>8}/{run.stored:<7} {seconds_text(run.vectors_s) if run.vectors_s == run.vectors_s else 'not in time':>18} "
              f"{' -> '.join(f'{v:.1f}' for v in run.load):>11}"
              + ("" if run.done_s == run.done_s else f"  (OCR not over within {args.worker_timeout:g} s)")
              + (f"  failed {run.failed}" if run.failed else "")
              + ("" if run.statuses == Counter({"created": run.posted}) else f"  {dict(run.statuses)}"))
    print("  (frames/s: stored frames / first POST to last OCR over; CPU-s/frame: every process's CPU in that time, by role "
          "below, per frame; cores busy: that CPU over that time)")
    for run in runs:
        parts = ", ".join(f"{role} {seconds / max(run.stored, 1):.2f}" for role, seconds in sorted(run.cpu_s.items(), key=lambda kv: -kv[1]))
        print(f"    {run.workers} worker(s), CPU-s per frame by role: {parts}")
    base = runs[0]
    base_rate = base.stored / base.done_s if base.done_s == base.done_s else float("nan")
    for run in runs[1:]:
        rate = run.stored / run.done_s if run.done_s == run.done_s else float("nan")
        print(f"  {run.workers} workers: x{rate / base_rate:.2f} the rate of {base.workers}")
    best = max(runs, key=lambda r: r.stored / r.done_s if r.done_s == r.done_s else 0)
    cpu_per_frame = sum(best.cpu_s.values()) / max(best.stored, 1)
    print(f"  OCR is CPU-bound: at {cpu_per_frame:.2f} CPU-seconds per frame (all processes, {best.workers} workers), "
          f"{cores} cores can do at most about {cores / cpu_per_frame:.2f} frames/s; a machine with more cores adds about "
          f"{1 / cpu_per_frame:.2f} frames/s per core, given workers x OCR threads >= cores (an estimate from this run's CPU "
          f"time, not measured on such a machine)")
    stored = sum(run.stored for run in runs)
    images = [size for run in runs for size in run.image_bytes]
    tables: Counter = Counter()
    for run in runs:
        tables.update(run.table_bytes)
    image = statistics.mean(images) if images else 0
    database_bytes = sum(tables.values()) / max(stored, 1)
    print(f"\n  bytes per stored frame on {'PostgreSQL' if pg else 'SQLite'} ({stored} frames, 1920x1080, each its own device, "
          f"so no incremental OCR carried lines): image file {image / 1024:.1f} KB, database {database_bytes / 1024:.1f} KB "
          f"({'pg_total_relation_size: indexes and TOAST included' if pg else 'dbstat pages of 4 KB, indexes included'}), "
          f"total {(image + database_bytes) / 1024:.1f} KB")
    for name, size in sorted(tables.items(), key=lambda item: -item[1]):
        if size / max(stored, 1) >= 10:
            print(f"      {name:40s} {size / max(stored, 1) / 1024:6.1f} KB")


def text_recall(*, drawn: str, read: str) -> tuple[float, float]:
    """Share of the drawn English words and Chinese characters that OCR gave back (as multisets)."""
    scores = []
    for pattern, drawn_units, read_units in (
        (EN_TOKEN, drawn.lower(), read.lower()),
        (CJK_CHAR, drawn, read),
    ):
        want = Counter(pattern.findall(drawn_units))
        got = Counter(pattern.findall(read_units))
        scores.append(sum((want & got).values()) / sum(want.values()) if want else float("nan"))
    return scores[0], scores[1]


def quality_measure(frames: list[BenchFrame], stored_paths: dict[int, Path], *, qualities: list[str]) -> list[tuple]:
    """(source, mean KB, mean encode ms, EN recall, ZH recall) for the original, the stored file and WebP at
    each quality ("lossless" too, which the app does not offer: screens of text are flat colour, where it can win)."""
    from frames.reading import whole_read
    from frames.storage import image_encode

    sources: dict[str, list[tuple[int, float, float, float]]] = {}
    for frame in tqdm(frames, desc="(d) OCR quality", unit="frame"):
        original = Image.open(io.BytesIO(frame.png)).convert("RGB")
        stored = stored_paths[frame.frame_id].read_bytes()
        # A frame stored as a delta reads back to exactly the pixels posted (frames.storage; its
        # file is no image on its own): its bytes are counted, its pixels are the original's.
        candidates = {"original PNG": (frame.png, float("nan")), "stored WebP or delta": (stored, float("nan"))}
        for quality in qualities:
            started = time.perf_counter()
            if quality == "lossless":
                out = io.BytesIO()
                original.save(out, format="WEBP", lossless=True, quality=50, method=4)
                data = out.getvalue()
            else:
                data = image_encode(original, quality=int(quality), lossy=True)
            candidates[f"WebP {'q' if quality != 'lossless' else ''}{quality}"] = (data, time.perf_counter() - started)
        for name, (data, encode_s) in candidates.items():
            image = np.asarray(Image.open(io.BytesIO(frame.png if data.startswith((b"MRD1", b"MRD2")) else data)).convert("RGB"))
            read = "\n".join(line.text for line in whole_read(image=image))
            en, zh = text_recall(drawn=frame.drawn_text, read=read)
            sources.setdefault(name, []).append((len(data), encode_s, en, zh))
    return [
        (
            name,
            statistics.mean(r[0] for r in rows) / 1024,
            mean_known([r[1] * 1000 for r in rows]),
            mean_known([r[2] for r in rows]),
            mean_known([r[3] for r in rows]),
        )
        for name, rows in sources.items()
    ]


def meaning_check(frames: list[BenchFrame], ocr_rows: list[tuple]) -> MeaningCheck:
    """Run in this process after the server is gone: did each topic survive OCR, and how near is
    its paraphrase to the frame's text as the worker embeds it (window title and OCR text, in the
    same chunks; a frame matches by its best chunk): similarity, and the z search.relevance
    selects by (the frame is alone in the range the bench searches, so it is returned from z_first)?"""
    from search import relevance
    from search.embeddings import embed_query, embed_texts
    from search.passages import frame_passages  # what the worker embeds for a frame

    check = MeaningCheck(z_first=relevance.thresholds()[2])
    ocr_text = {row[3]: row[2] for row in ocr_rows}
    measured = [f for f in frames if f.status == "created" and f.topic and f.frame_id in ocr_text]
    if not measured:
        return check
    started = time.time()
    embed_texts(["warm up"])
    check.load_s = time.time() - started
    chunks = {f.frame_id: [p.text for p in frame_passages(window_name=f.window_name, text=ocr_text[f.frame_id])] for f in measured}
    flat = [chunk for f in measured for chunk in chunks[f.frame_id]]
    vectors = np.asarray(embed_texts(flat))
    at = 0
    for f in measured:
        n = len(chunks[f.frame_id])
        query = np.asarray(embed_query(f.query))
        language = relevance.query_language(f.query)
        records = relevance.chunk_stats(chunks[f.frame_id], vectors[at : at + n].tolist())
        sims = vectors[at : at + n] @ query
        check.similarity[f.frame_id] = float(np.max(sims)) if n else float("nan")
        check.z[f.frame_id] = (
            max(relevance.chunk_z(relevance.chunk_record(records, i), float(sim), language) for i, sim in enumerate(sims)) if n else float("nan")
        )
        at += n
        recall, _ = text_recall(drawn="\n".join(f.topic), read=ocr_text[f.frame_id])
        check.topic_recall[f.frame_id] = recall
    return check


def mean_known(values: list[float]) -> float:
    """Mean of the values that are not NaN (a screen without Chinese has no Chinese recall)."""
    known = [v for v in values if v == v]
    return statistics.fmean(known) if known else float("nan")


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def verdict(ok: bool) -> str:
    return "meets goal" if ok else "MISSES goal"


def code_state() -> str:
    """The commit measured, and the files changed but not committed (other work in the tree runs too)."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout.strip()
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO, capture_output=True, text=True)
    changed = [line[3:] for line in status.stdout.splitlines()]
    return head + (f" + uncommitted {', '.join(changed)}" if changed else "")


def pct_censored(values: list[float | None], q: float) -> float:
    """Percentile where None (never found) counts as longer than any value: inf when it lands there."""
    if not values:
        return float("nan")
    known = sorted(v for v in values if v is not None)
    rank = q / 100 * (len(values) - 1)
    if rank > len(known) - 1:
        return float("inf")
    low, high = known[math.floor(rank)], known[math.ceil(rank)]
    return low + (high - low) * (rank - math.floor(rank))


def seconds_text(value: float) -> str:
    return "not found in time" if value == float("inf") else f"{value:.2f} s"


def meaning_line(figures: RunFigures) -> None:
    """Time-to-searchable by meaning, in the form of the keyword figure printed above it."""
    times = [f.meaning_s for f in figures.frames if f.status == "created" and f.topic]
    found = [t for t in times if t is not None]
    p95 = pct_censored(times, 95)
    print(f"    time-to-searchable by meaning, a paraphrase of its topic:  p50 {seconds_text(pct_censored(times, 50))}, "
          f"p95 {seconds_text(p95)}, max found {max(found, default=float('nan')):.2f} s  "
          f"[goal p95 <= {GOAL_SEARCHABLE_P95_S:g} s: {verdict(p95 <= GOAL_SEARCHABLE_P95_S)}]")


def meaning_report(args, figures: RunFigures) -> None:
    """What lies behind the figure by meaning: how many were found, why the others were not, the
    topic check, degraded responses."""
    stored = [f for f in figures.frames if f.status == "created"]
    measured = [f for f in stored if f.topic]
    check, stats = figures.meaning_check, figures.meaning
    found = [f.meaning_s for f in measured if f.meaning_s is not None]
    floor = check.z_first
    missing = [f for f in measured if f.meaning_s is None]
    unwritten = [f for f in missing if f.vectors_status != "done"]
    unread = [f for f in missing if f not in unwritten and check.topic_recall.get(f.frame_id, 0) < 0.5]
    unreached = [f for f in missing if f not in unwritten + unread and check.z.get(f.frame_id, -99) < floor]
    other = len(missing) - len(unwritten) - len(unread) - len(unreached)
    share = f"{len(found) / len(measured):.0%}" if measured else "n/a"
    print(f"    found by meaning {len(found)}/{len(measured)} ({share}) within {args.timeout:g} s (GET mode=semantic, "
          f"start_time = its POST - 0.5 s, limit 10); never found, counted as slower than any in the percentiles: "
          f"{len(missing)} (vector row not done in time or failed {len(unwritten)}, topic not read by OCR {len(unread)}, "
          f"paraphrase drawing the frame's text under z {floor:g} (search.relevance) {len(unreached)}, other {other})")
    vectors = [f.vectors_s for f in measured if f.vectors_s is not None]
    print(f"    its vector row done (database) after: p50 {pct(vectors, 50):.2f} s, p95 {pct(vectors, 95):.2f} s; "
          f"semantic searches {stats.requests}, degraded {sum(stats.degraded.values())}"
          + "".join(f"\n      degraded x{n}: {reason}" for reason, n in stats.degraded.most_common()))
    sims = [check.similarity[f.frame_id] for f in measured if f.frame_id in check.similarity]
    zs = [check.z[f.frame_id] for f in measured if f.frame_id in check.z]
    recalls = [check.topic_recall[f.frame_id] for f in measured if f.frame_id in check.topic_recall]
    if sims:
        print(f"    topic check (this process, OCR text from the database, embedder load {check.load_s:.1f} s): "
              f"topic words OCR read back mean {statistics.fmean(recalls):.2f} (under 0.8: {sum(r < 0.8 for r in recalls)}); "
              f"paraphrase similarity to the frame's text as indexed (best chunk) min {min(sims):.2f}, "
              f"p10 {pct(sims, 10):.2f}, p50 {pct(sims, 50):.2f}; its z min {min(zs):.2f}, p10 {pct(zs, 10):.2f}, "
              f"p50 {pct(zs, 50):.2f}, under {floor:g}: {sum(z < floor for z in zs)}")
    slowest = sorted((f for f in measured if f.meaning_s is not None), key=lambda f: -f.meaning_s)[:3]
    print("    slowest found: " + "; ".join(
        f"frame {f.frame_id} (#{f.index}) {f.meaning_s:.2f} s, its vector row done at {f.vectors_s:.2f} s" for f in slowest
    ))
    for f in missing:
        print(f"      never found: frame {f.frame_id} {f.query!r}: vectors {f.vectors_status or 'pending'}"
              f"{'' if f.vectors_s is None else f' at {f.vectors_s:.1f} s'}, topic read {check.topic_recall.get(f.frame_id, float('nan')):.2f}, "
              f"similarity {check.similarity.get(f.frame_id, float('nan')):.3f}")
    untopical = [f for f in stored if not f.topic]
    if untopical:
        print(f"    stored frames without a topic (only {len(TOPICS)} topics): {len(untopical)}, not measured by meaning")
    if skipped := sum(1 for f in figures.frames if f.status == "duplicate" and f.topic):
        print(f"    topics on frames skipped as near-duplicates: {skipped}, not measured (drawn on that frame alone)")


def report_print(args, figures: RunFigures, quality_rows, server_quality: str) -> None:
    frames = figures.frames
    stored = [f for f in frames if f.status == "created"]
    skipped = [f for f in frames if f.status == "duplicate"]
    other = [f for f in frames if f.status not in ("created", "duplicate")]
    png_kb = statistics.mean(len(f.png) for f in frames) / 1024
    print()
    print(f"MyRecall ingest bench: {len(frames)} frames 1920x1080 (PNG {png_kb:.0f} KB avg), seed {args.seed}, "
          f"dedup {'off' if args.no_dedup else 'on (server default)'}, "
          f"{'no topics' if args.no_topics else f'a topic on each frame (of {len(TOPICS)})'}, WebP quality {server_quality}, "
          f"{os.cpu_count()} cores; 1-min load average {' -> '.join(f'{v:.1f}' for v in figures.load_paced)} over (b)")
    print(f"code: {code_state()}")
    if args.database == "postgres":
        print(f"database: PostgreSQL ({args.pg_description})")

    print("\n(a) burst ingest, POST /api/v1/frames (each frame its own device: nothing skipped):")
    for clients, (rate, latencies, statuses) in figures.burst.items():
        print(f"    {clients} client{'s' if clients > 1 else ' '}: {rate:5.1f} frames/s accepted; "
              f"POST p50 {pct(latencies, 50) * 1000:.0f} ms, p95 {pct(latencies, 95) * 1000:.0f} ms; {dict(statuses)}")

    print(f"\n(b) paced run, one frame every {args.interval:g} s, device 'paced':")
    print(f"    stored {len(stored)}, skipped as near-duplicates {len(skipped)}" + (f", other {Counter(f.status for f in other)}" if other else ""))
    times = [f.searchable_s for f in stored]
    found = [t for t in times if t is not None]
    via_later = sum(1 for f in stored if f.searchable_s is not None and f.found_in != f.frame_id)
    p95 = pct_censored(times, 95)
    print(f"    time-to-searchable of a stored frame's new word: p50 {seconds_text(pct_censored(times, 50))}, "
          f"p95 {seconds_text(p95)}, max found {max(found, default=float('nan')):.2f} s  "
          f"[goal p95 <= {GOAL_SEARCHABLE_P95_S:g} s: {verdict(p95 <= GOAL_SEARCHABLE_P95_S)}]")
    if not args.no_topics:
        meaning_line(figures)
    ocr_text = {row[3]: row[2] for row in figures.ocr_rows}
    missing = [f for f in stored if f.searchable_s is None]
    misread = sum(1 for f in missing if f.word not in ocr_text.get(f.frame_id, ""))
    print(f"    stored frames whose word was not found within {args.timeout:g} s: {len(missing)} "
          f"(OCR did not read it: {misread}); found only through a later frame: {via_later}")
    if skipped:
        late = [f.searchable_s for f in skipped if f.searchable_s is not None]
        print(f"    words typed into skipped frames: searchable later (with a later stored frame) {len(late)}/{len(skipped)}, "
              f"after p50 {pct(late, 50):.1f} s, max {max(late, default=float('nan')):.1f} s (polled every {POLL_SKIPPED_S:g} s); "
              f"never within {args.timeout:g} s: {len(skipped) - len(late)}")
    if args.no_topics:
        print("    time-to-searchable by meaning: not measured (--no-topics)")
    else:
        meaning_report(args, figures)
    web, worker = figures.warm_up.get("web"), figures.warm_up.get("worker")
    print(f"    embedders ready before (b): web server after {'not within 60 s' if web is None else f'{web:.1f} s'} of warm-up, "
          f"worker after {'not within 60 s' if worker is None else f'{worker:.1f} s'} "
          f"({figures.warm_up.get('worker_line') or 'no line'})")
    elapsed = [row[0] / 1000 for row in figures.ocr_rows]
    areas = [row[1] for row in figures.ocr_rows]
    print(f"    OCR s/frame (worker, OcrResult.elapsed_ms): p50 {pct(elapsed, 50):.2f}, p95 {pct(elapsed, 95):.2f}; "
          f"mean ocr_area {statistics.mean(areas) if areas else float('nan'):.2f}")
    post_s = [f.post_s for f in frames]
    print(f"    POST latency while paced: p50 {pct(post_s, 50) * 1000:.0f} ms, p95 {pct(post_s, 95) * 1000:.0f} ms")

    n = max(len(stored), 1)
    image = statistics.mean(figures.image_bytes) if figures.image_bytes else 0
    database = sum(figures.table_bytes.values()) / n
    total = image + database
    print(f"\n(c) bytes per stored frame ({len(stored)} frames, 1920x1080):")
    print(f"    image file {image / 1024:.1f} KB (min {min(figures.image_bytes, default=0) / 1024:.1f}, "
          f"max {max(figures.image_bytes, default=0) / 1024:.1f})")
    layout = "pg_total_relation_size: indexes and TOAST included" if args.database == "postgres" else "pages of 4 KB, indexes included"
    print(f"    database {database / 1024:.1f} KB, by table ({layout}):")
    for name, size in sorted(figures.table_bytes.items(), key=lambda item: -item[1]):
        print(f"      {name:40s} {size / n / 1024:6.1f} KB")
    print(f"    total {total / 1024:.1f} KB  [goal <= {GOAL_BYTES_PER_FRAME // 1024} KB: {verdict(total <= GOAL_BYTES_PER_FRAME)}]")

    print(f"\n(d) OCR quality, {args.quality_sample} stored frames, engine run in this process on each version:")
    print(f"    {'source':14s} {'KB/frame':>9s} {'encode ms':>10s} {'EN words':>9s} {'ZH chars':>9s}   (recall against the text drawn)")
    for name, kb, encode_ms, en, zh in quality_rows:
        encode = "" if encode_ms != encode_ms else f"{encode_ms:.0f}"
        print(f"    {name:14s} {kb:9.1f} {encode:>10s} {en:9.3f} {zh:9.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=40)
    parser.add_argument("--interval", type=float, default=3.0, help="Seconds between frames in the paced run.")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=60.0, help="Give up on a word after this many seconds.")
    parser.add_argument("--no-dedup", action="store_true", help="Run the server with near-duplicate skipping off.")
    parser.add_argument("--quality", type=int, help="MYRECALL_IMAGE_QUALITY for the server (default: its own).")
    parser.add_argument("--qualities", default="50,65,80,90,lossless", help="WebP qualities to compare OCR on in (d).")
    parser.add_argument("--quality-sample", type=int, default=8)
    parser.add_argument("--keep", action="store_true", help="Keep the temporary data dir.")
    parser.add_argument("--during-import", type=int, default=0, metavar="N",
                        help="Run only (e): live frames while a folder of N screenshots is imported.")
    parser.add_argument("--live-frames", type=int, default=100, help="Live frames posted in (e).")
    parser.add_argument("--drain-timeout", type=float, default=7200.0,
                        help="In (e), seconds to wait after the import command for its frames to be read.")
    parser.add_argument(
        "--no-topics", action="store_true",
        help="No topics on the screens, no time-to-searchable by meaning: the frames of the keyword-only bench, byte for "
        "byte. Each topic is new text the worker must OCR (often a full pass instead of a crop), so the keyword figures "
        "of a run with topics are not comparable with those of earlier runs; this one is.",
    )
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite",
                        help="the server's database: sqlite (its data dir's file, the default) or postgres (a PostgreSQL 15 of "
                        "the bench's own, bench.pg, with the settings it prints)")
    parser.add_argument("--pg-setting", action="append", default=[], metavar="NAME=VALUE",
                        help="a PostgreSQL setting over bench.pg.BENCH_SETTINGS (repeatable)")
    parser.add_argument("--workers", metavar="COUNTS",
                        help="Run only (w): frames/s ingested and OCR'd with this many worker processes each, e.g. 1,2,4.")
    parser.add_argument("--worker-frames", type=int, default=40, help="Frames posted at once for each worker count in (w).")
    parser.add_argument("--worker-clients", type=int, default=BURST_CLIENTS, help="Clients posting at once in (w).")
    parser.add_argument("--worker-timeout", type=float, default=3600.0, help="In (w), seconds to wait for OCR (and vectors).")
    parser.add_argument("--ocr-threads", type=int, help="MYRECALL_OCR_THREADS for the server and workers (default: its own).")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="myrecall-bench-ingest-"))
    os.environ["MYRECALL_DATA_DIR"] = str(work / "bench")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "myrecall.settings")
    import django

    django.setup()
    from django.conf import settings

    server_env = {}
    if args.no_dedup:
        server_env["MYRECALL_DEDUP_MAX_DISTANCE"] = "-1"
    if args.quality:
        server_env["MYRECALL_IMAGE_QUALITY"] = str(args.quality)
    if args.ocr_threads:
        server_env["MYRECALL_OCR_THREADS"] = os.environ["MYRECALL_OCR_THREADS"] = str(args.ocr_threads)
    server_quality = server_env.get("MYRECALL_IMAGE_QUALITY", str(settings.IMAGE_QUALITY))
    if problems := topics_check():
        sys.exit("TOPICS are not sound:\n  " + "\n  ".join(problems))

    pg = None
    try:
        if args.database == "postgres":
            pg = BenchPostgres(settings_parse(args.pg_setting))
            args.pg_description = pg.describe()
            print(f"PostgreSQL for this run: {args.pg_description}", flush=True)
            server_env["DATABASE_URL"] = pg.url
        if args.workers:
            workers_main(args, work, server_env, pg)
            return
        if args.during_import:
            during_import_main(args, work, server_env)
            return
        figures = RunFigures(frames=frames_render(count=args.frames, seed=args.seed, topics=not args.no_topics))
        print("starting serve ...", flush=True)
        with LiveServer(work / "data", env=server_env) as server:
            print("waiting for the embedders to load ...", flush=True)
            figures.warm_up = embedder_warm_up(server)
            paced_run(server, figures.frames, interval_s=args.interval, timeout_s=args.timeout, figures=figures)
            for clients in (1, BURST_CLIENTS):
                figures.burst[clients] = burst_run(server, figures.frames, clients=clients)
            with db_connect(server) as db:
                stored_paths = {
                    frame_id: server.data_dir / path
                    for frame_id, path in db.execute("SELECT id, image_path FROM frames_frame WHERE device_name = 'paced'")
                }
        figures.meaning_check = meaning_check(figures.frames, figures.ocr_rows)
        stored = [f for f in figures.frames if f.status == "created"]
        step = max(len(stored) // args.quality_sample, 1)
        sample = stored[::step][: args.quality_sample]
        quality_rows = quality_measure(sample, stored_paths, qualities=[q.strip() for q in args.qualities.split(",") if q.strip()])
        args.quality_sample = len(sample)
        report_print(args, figures, quality_rows, server_quality)
    finally:
        if pg is not None:
            pg.stop()
        if args.keep:
            print(f"\ndata kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
